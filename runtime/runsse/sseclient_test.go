package runsse

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/runtime"
)

// sseFrame is what an SSE reader gets from a stream: an event's fields,
// or a comment line (a keep-alive).
type sseFrame struct {
	ID, Event, Data string
	// HasID and HasEvent tell an empty field from an absent one.
	HasID, HasEvent bool
	Comment         string
	IsComment       bool
}

// sseReader parses the SSE wire format as a browser's EventSource does:
// lines ended by LF, CRLF or CR; "field: value" with one leading space
// stripped; data lines joined by LF; a blank line dispatches the event;
// a line starting with ':' is a comment.
type sseReader struct {
	r *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReader(r)} }

// line reads one line without its terminator.
func (c *sseReader) line() (string, error) {
	var b strings.Builder
	for {
		ch, err := c.r.ReadByte()
		if err != nil {
			if b.Len() > 0 && errors.Is(err, io.EOF) {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		switch ch {
		case '\n':
			return b.String(), nil
		case '\r':
			if next, err := c.r.Peek(1); err == nil && next[0] == '\n' {
				_, _ = c.r.ReadByte()
			}
			return b.String(), nil
		}
		b.WriteByte(ch)
	}
}

// next returns the next event or comment; io.EOF when the stream ended
// between events.
func (c *sseReader) next() (sseFrame, error) {
	var f sseFrame
	var data []string
	started := false
	for {
		l, err := c.line()
		if err != nil {
			if started && errors.Is(err, io.EOF) {
				return f, io.ErrUnexpectedEOF
			}
			return f, err
		}
		switch {
		case l == "":
			if !started {
				continue
			}
			f.Data = strings.Join(data, "\n")
			return f, nil
		case strings.HasPrefix(l, ":"):
			if !started {
				return sseFrame{Comment: strings.TrimPrefix(strings.TrimPrefix(l, ":"), " "), IsComment: true}, nil
			}
			continue
		}
		started = true
		name, value, _ := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "id":
			f.ID, f.HasID = value, true
		case "event":
			f.Event, f.HasEvent = value, true
		case "data":
			data = append(data, value)
		}
	}
}

// event returns the next event, skipping comments.
func (c *sseReader) event() (sseFrame, error) {
	for {
		f, err := c.next()
		if err != nil || !f.IsComment {
			return f, err
		}
	}
}

// events reads n events.
func (c *sseReader) events(t *testing.T, n int) []sseFrame {
	t.Helper()
	out := make([]sseFrame, 0, n)
	for range n {
		f, err := c.event()
		if err != nil {
			t.Fatalf("after %d events: %v", len(out), err)
		}
		out = append(out, f)
	}
	return out
}

// rest reads events until the stream ends, which must be cleanly between
// two events.
func (c *sseReader) rest(t *testing.T) []sseFrame {
	t.Helper()
	var out []sseFrame
	for {
		f, err := c.event()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("after %d events: %v", len(out), err)
		}
		out = append(out, f)
	}
}

// open sends a GET to url with the Last-Event-ID header when lastID is
// not empty; the response's body is closed at the test's end.
func open(t *testing.T, url, lastID string) *http.Response {
	t.Helper()
	resp, err := get(context.Background(), url, lastID, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// get sends a GET to url with the Last-Event-ID header when lastID is not
// empty, and the headers of hd.
func get(ctx context.Context, url, lastID string, hd http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range hd {
		req.Header[k] = vs
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	return http.DefaultClient.Do(req)
}

// wantStream opens a stream and checks its status and headers.
func wantStream(t *testing.T, url, lastID string) *sseReader {
	t.Helper()
	resp := open(t, url, lastID)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s %s", url, resp.Status, b)
	}
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	return newSSEReader(resp.Body)
}

// record returns event seq of run, of type typ, at a fixed time.
func record(run string, seq int64, typ runtime.EventType) runtime.EventRecord {
	return runtime.EventRecord{
		Version: runtime.EventFormat, Type: typ,
		EventHeader: runtime.EventHeader{RunID: run, SessionID: "s-1", Agent: "desk", Seq: seq,
			Time: time.Date(2026, 12, 1, 10, 0, int(seq), 0, time.UTC), Step: 1},
		Data: json.RawMessage(fmt.Sprintf(`{"n":%d,"text":"line one\nline two"}`, seq)),
	}
}

// appendRun appends events from..to of run: run_started first, then the
// types given in turn (repeated when fewer).
func appendRun(t *testing.T, log runtime.RunLog, run string, types ...runtime.EventType) {
	t.Helper()
	info, err := log.Run(context.Background(), run)
	if err != nil && !errors.Is(err, runtime.ErrUnknownRun) {
		t.Fatal(err)
	}
	recs := make([]runtime.EventRecord, len(types))
	for i, typ := range types {
		recs[i] = record(run, info.LastSeq+int64(i)+1, typ)
	}
	if err := log.Append(context.Background(), "test-owner", recs); err != nil {
		t.Fatal(err)
	}
}

// wantLog checks that got is every event of run in log, in order, each
// once, as the wire form says.
func wantLog(t *testing.T, log runtime.RunLog, run string, got []sseFrame) {
	t.Helper()
	all, err := log.Read(context.Background(), run, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Errorf("received %d events, the log holds %d: %v", len(got), len(all), ids(got))
	}
	for i := range min(len(got), len(all)) {
		data, err := runtime.MarshalEvent(all[i])
		if err != nil {
			t.Fatal(err)
		}
		want := sseFrame{ID: strconv.FormatInt(all[i].Seq, 10), HasID: true, Event: string(all[i].Type), HasEvent: true, Data: string(data)}
		if got[i] != want {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
}

// ids lists the ids of frames.
func ids(fs []sseFrame) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

// watchedLog is a run log that counts what is read from it and reports
// each Wait it is asked for.
type watchedLog struct {
	runtime.RunLog
	reads atomic.Int64
	waits chan waitCall
}

// waitCall is one call of Wait.
type waitCall struct {
	run   string
	after int64
}

func newWatchedLog() *watchedLog {
	return &watchedLog{RunLog: runtime.NewMemoryRunLog(), waits: make(chan waitCall, 1024)}
}

func (l *watchedLog) Read(ctx context.Context, runID string, after int64, limit int) ([]runtime.EventRecord, error) {
	l.reads.Add(1)
	return l.RunLog.Read(ctx, runID, after, limit)
}

func (l *watchedLog) Run(ctx context.Context, runID string) (runtime.RunInfo, error) {
	l.reads.Add(1)
	return l.RunLog.Run(ctx, runID)
}

func (l *watchedLog) Wait(ctx context.Context, runID string, after int64, timeout time.Duration) (bool, error) {
	l.reads.Add(1)
	select {
	case l.waits <- waitCall{runID, after}:
	default:
	}
	return l.RunLog.Wait(ctx, runID, after, timeout)
}

// waitFor returns once the handler waits on run after after.
func (l *watchedLog) waitFor(run string, after int64) {
	for c := range l.waits {
		if c.run == run && c.after == after {
			return
		}
	}
}

// server serves h, reporting each request the handler has finished on
// the channel returned.
func server(t *testing.T, h http.Handler) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	done := make(chan struct{}, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { done <- struct{}{} }()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, done
}

// allow is an Authorize that lets every request read every run.
func allow(*http.Request, string) error { return nil }

// newHandler returns New(log, o) with Authorize allow when o has none.
func newHandler(t *testing.T, log runtime.RunLog, o Options) http.Handler {
	t.Helper()
	if o.Authorize == nil {
		o.Authorize = allow
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	h, err := New(log, o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
