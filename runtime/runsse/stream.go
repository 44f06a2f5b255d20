package runsse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/quiver-go/quiver/runtime"
)

// readBatch is how many events a stream reads from the log at once.
const readBatch = 256

// maxEventNameBytes bounds an event type sent on an event line.
const maxEventNameBytes = 128

// errClient is wrapped by the errors of writing to the client: it went
// away, or stopped reading for longer than Options.WriteTimeout.
var errClient = errors.New("runsse: the client")

// errRunGone ends a stream whose run the log no longer has (it expired).
var errRunGone = errors.New("runsse: the run is no longer in the run log (it expired)")

// stream writes the run's events after sequence number after until the
// run's terminal event is written, ctx is done, a write fails or the log
// fails.
func (h *handler) stream(ctx context.Context, s *sseWriter, runID string, after int64) {
	err := h.follow(ctx, s, runID, &after)
	s.finish()
	h.logStreamEnd(ctx, runID, after, err)
}

// follow is stream's loop; *after is the last event written. It returns
// nil once the run's terminal event is written.
func (h *handler) follow(ctx context.Context, s *sseWriter, runID string, after *int64) error {
	woke := false // the last Wait reported an event after *after
	for {
		recs, err := h.log.Read(ctx, runID, *after, readBatch)
		if err != nil {
			return fmt.Errorf("reading the run log: %w", err)
		}
		if woke && len(recs) == 0 {
			// Rather than spin: the run expired in between, or the log
			// is inconsistent.
			if err := h.checkRun(ctx, runID, *after); err != nil {
				return err
			}
			return fmt.Errorf("the run log's Wait reports an event after %d that its Read does not return", *after)
		}
		for _, rec := range recs {
			if rec.Seq != *after+1 || rec.RunID != runID {
				return fmt.Errorf("the run log returned event %d of run %s after event %d of run %s: it is inconsistent", rec.Seq, quote(rec.RunID), *after, quote(runID))
			}
			if err := s.event(rec); err != nil {
				return err
			}
			*after = rec.Seq
			if terminal(rec.Type) {
				return nil
			}
		}
		if len(recs) == readBatch {
			woke = false
			continue
		}
		woke, err = h.log.Wait(ctx, runID, *after, h.opts.KeepAlive)
		if err != nil {
			return fmt.Errorf("waiting on the run log: %w", err)
		}
		if woke {
			continue
		}
		if err := s.comment("keep-alive"); err != nil {
			return err
		}
		if err := h.checkRun(ctx, runID, *after); err != nil {
			return err
		}
	}
}

// checkRun fails when the run is gone from the log, or has ended with no
// event after after: a stream waiting for it would wait forever.
func (h *handler) checkRun(ctx context.Context, runID string, after int64) error {
	info, err := h.log.Run(ctx, runID)
	switch {
	case errors.Is(err, runtime.ErrUnknownRun):
		return errRunGone
	case err != nil:
		return fmt.Errorf("reading the run log: %w", err)
	case info.LastSeq < after:
		return fmt.Errorf("the run log's last event of the run is %d, before event %d the stream sent: it was replaced", info.LastSeq, after)
	case info.Status.Ended() && info.LastSeq == after:
		return fmt.Errorf("the run is %s with no terminal event sent", info.Status)
	}
	return nil
}

// terminal reports whether an event of type t ends its run.
func terminal(t runtime.EventType) bool {
	return runtime.StatusAfter(runtime.StatusRunning, t).Ended()
}

// sseWriter writes the fields of an event stream, each write under its
// deadline, and flushes after each event.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     bytes.Buffer
}

// setDeadline bounds the next write by the writer's timeout (none when it
// is negative).
func (s *sseWriter) setDeadline() error {
	if s.timeout < 0 {
		return nil
	}
	return s.rc.SetWriteDeadline(deadlineFrom(time.Now(), s.timeout))
}

// event writes rec as one event: id, event (when its type is a token) and
// data lines, then a blank line, and flushes it.
func (s *sseWriter) event(rec runtime.EventRecord) error {
	data, err := runtime.MarshalEvent(rec)
	if err != nil {
		return fmt.Errorf("encoding event %d: %w", rec.Seq, err)
	}
	if bytes.ContainsAny(data, "\r\n") {
		// encoding/json writes compact JSON, escaping line breaks in
		// strings: this cannot happen, and would forge fields if it did.
		return fmt.Errorf("the record of event %d holds a line break", rec.Seq)
	}
	s.buf.Reset()
	s.buf.WriteString("id: ")
	s.buf.WriteString(strconv.FormatInt(rec.Seq, 10))
	if name := string(rec.Type); eventName(name) {
		s.buf.WriteString("\nevent: ")
		s.buf.WriteString(name)
	}
	s.buf.WriteString("\ndata: ")
	s.buf.Write(data)
	s.buf.WriteString("\n\n")
	return s.send()
}

// comment writes a comment line, which readers ignore.
func (s *sseWriter) comment(text string) error {
	s.buf.Reset()
	s.buf.WriteString(": ")
	s.buf.WriteString(text)
	s.buf.WriteString("\n\n")
	return s.send()
}

// send writes the buffer under a fresh deadline and flushes it.
func (s *sseWriter) send() error {
	if err := s.setDeadline(); err != nil {
		return fmt.Errorf("%w: setting the write deadline: %w", errClient, err)
	}
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return fmt.Errorf("%w: writing: %w", errClient, err)
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("%w: flushing: %w", errClient, err)
	}
	return nil
}

// finish bounds what net/http writes after the handler returns (the end
// of the chunked body); it clears the deadline itself afterwards.
func (s *sseWriter) finish() {
	_ = s.setDeadline()
}

// eventName reports whether t may be sent on an event line: a token of
// [A-Za-z0-9_.:-], 1 to maxEventNameBytes bytes.
func eventName(t string) bool {
	if t == "" || len(t) > maxEventNameBytes {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
