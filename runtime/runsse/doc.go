// Package runsse serves one run's events from a [runtime.RunLog] over HTTP
// as Server-Sent Events, from a cursor, so that a browser's EventSource —
// or any SSE reader — follows a run live and resumes after a disconnect
// without a gap or a duplicate. [New] returns the [http.Handler]; the
// application mounts it (http.ServeMux, a router) and decides who may
// read which run ([Options.Authorize]).
//
// Each event is written as
//
//	id: <seq>
//	event: <type>
//	data: <the event's record as runtime.MarshalEvent encodes it>
//
// followed by a blank line, flushed at once. The cursor is the sequence
// number of the last event the client holds: the Last-Event-ID header
// (what EventSource sends when it reconnects), else the "after" query
// parameter, else 0 (from the run's first event).
//
// The package owns the HTTP face of a run log and nothing else: it reads
// the log (Read, Wait, Run), never writes it, and never holds a run back.
//
// Invariants:
//   - Nothing is read from the run log, and nothing streamed, before the
//     request passed its checks, in this order: method (405), run id and
//     cursor (400), cross-origin browser request (403), a follower slot
//     (503, Retry-After), [Options.Authorize] (403, 401…), then the run:
//     unknown after [Options.WaitForRun] (404), a cursor at or past the end
//     of an ended run (204 No Content, which stops EventSource
//     reconnecting), a cursor past the end of a run that has not ended
//     (400).
//   - The events sent follow one another by sequence number from the
//     cursor, each once: a stream ends rather than send a gap, and a
//     client that reconnects with the last id it received misses nothing.
//   - A stream follows a suspended run on (a confirmation or clarification
//     may continue it later), sending keep-alive comments while it waits,
//     and ends once the run's terminal event (completed, failed,
//     cancelled, interrupted) has been written, when the client goes away
//     (the request's context), when a write does not finish within
//     [Options.WriteTimeout], or when the run disappears from the log
//     (expired).
//   - At most [Options.MaxFollowers] streams run at once per handler.
//   - A field the log holds cannot forge another: an event type that is
//     not a plain token ([A-Za-z0-9_.:-], at most 128 bytes) is sent
//     without an event line (EventSource reads it as a "message"), and
//     its record, compact JSON, holds no line break.
package runsse
