package runsse

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/runtime"
)

// TestResumeAfterDisconnect: a client reads some events, goes away, more
// are appended while it is away, and it reconnects with Last-Event-ID, as
// EventSource does: what it received in all is the log, with no gap and
// no duplicate. Once it holds the terminal event, reconnecting is 204.
func TestResumeAfterDisconnect(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	srv, done := server(t, newHandler(t, log, Options{}))
	url := srv.URL + "/?run=r1"
	appendRun(t, log, "r1", runtime.EventRunStarted, runtime.EventPlanned, runtime.EventToolCallScheduled, runtime.EventToolResult, runtime.EventPlanned)

	resp := open(t, url, "")
	got := newSSEReader(resp.Body).events(t, 2)
	resp.Body.Close()
	<-done // the handler saw the client go

	appendRun(t, log, "r1", runtime.EventToolCallScheduled, runtime.EventAwaiting)
	// A second absence, across the suspension.
	c := wantStream(t, url, got[len(got)-1].ID)
	got = append(got, c.events(t, 5)...)
	if got[len(got)-1].Event != string(runtime.EventAwaiting) {
		t.Fatalf("the 6th event is %+v, want the awaiting one", got[len(got)-1])
	}
	appendRun(t, log, "r1", runtime.EventConfirmation, runtime.EventToolResult, runtime.EventRunCompleted)
	got = append(got, c.events(t, 1)...)
	// The third connection names the URL of the first (?after is not
	// given) and the last id received.
	got = append(got, wantStream(t, url, got[len(got)-1].ID).rest(t)...)
	wantLog(t, log, "r1", got)

	resp = open(t, url, got[len(got)-1].ID)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("reconnecting after the terminal event: %s, want 204", resp.Status)
	}
}

// TestFollowLive: events appended after the client connected arrive as
// they are appended; a suspended run is followed on, and the stream ends
// after the terminal event.
func TestFollowLive(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	srv, _ := server(t, newHandler(t, log, Options{}))
	appendRun(t, log, "r1", runtime.EventRunStarted)
	c := wantStream(t, srv.URL+"/?run=r1", "")
	got := c.events(t, 1)

	appendRun(t, log, "r1", runtime.EventPlanned)
	got = append(got, c.events(t, 1)...)
	appendRun(t, log, "r1", runtime.EventToolCallScheduled, runtime.EventAwaiting)
	got = append(got, c.events(t, 2)...)
	// Suspended: the stream stays, and the continuation's events arrive.
	appendRun(t, log, "r1", runtime.EventConfirmation)
	got = append(got, c.events(t, 1)...)
	appendRun(t, log, "r1", runtime.EventToolResult, runtime.EventRunFailed)
	got = append(got, c.rest(t)...)
	wantLog(t, log, "r1", got)
	if last := got[len(got)-1]; last.Event != string(runtime.EventRunFailed) {
		t.Fatalf("the stream ended after %+v", last)
	}
}

// TestStreamEndsAtEveryTerminalEvent: completed, failed, cancelled and
// interrupted each end the stream once written.
func TestStreamEndsAtEveryTerminalEvent(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	srv, _ := server(t, newHandler(t, log, Options{}))
	for _, end := range []runtime.EventType{runtime.EventRunCompleted, runtime.EventRunFailed, runtime.EventRunCancelled, runtime.EventRunInterrupted} {
		run := "r-" + string(end)
		appendRun(t, log, run, runtime.EventRunStarted)
		c := wantStream(t, srv.URL+"/?run="+run, "")
		got := c.events(t, 1)
		appendRun(t, log, run, end)
		got = append(got, c.rest(t)...)
		wantLog(t, log, run, got)
	}
}

// TestCursor: ?after starts the stream after that event, and
// Last-Event-ID, which EventSource sends with the URL it first opened,
// wins over it.
func TestCursor(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	srv, _ := server(t, newHandler(t, log, Options{}))
	appendRun(t, log, "r1", runtime.EventRunStarted, runtime.EventPlanned, runtime.EventToolCallScheduled, runtime.EventToolResult, runtime.EventRunCompleted)
	for _, tc := range []struct {
		query, lastID string
		want          []string
	}{
		{"", "", []string{"1", "2", "3", "4", "5"}},
		{"&after=0", "", []string{"1", "2", "3", "4", "5"}},
		{"&after=2", "", []string{"3", "4", "5"}},
		{"&after=2", "4", []string{"5"}},
		{"", "3", []string{"4", "5"}},
	} {
		got := ids(wantStream(t, srv.URL+"/?run=r1"+tc.query, tc.lastID).rest(t))
		if !slices.Equal(got, tc.want) {
			t.Errorf("query %q, Last-Event-ID %q: ids %v, want %v", tc.query, tc.lastID, got, tc.want)
		}
	}
}

// TestRunIDFromThePath: mounted on a pattern with a {run} wildcard, the
// handler reads the run from the path.
func TestRunIDFromThePath(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	mux := http.NewServeMux()
	var authorized []string
	mux.Handle("GET /runs/{run}/events", newHandler(t, log, Options{Authorize: func(_ *http.Request, run string) error {
		authorized = append(authorized, run)
		return nil
	}}))
	srv, _ := server(t, mux)
	appendRun(t, log, "r-7", runtime.EventRunStarted, runtime.EventRunCompleted)
	got := wantStream(t, srv.URL+"/runs/r-7/events?run=other", "").rest(t)
	wantLog(t, log, "r-7", got)
	if !slices.Equal(authorized, []string{"r-7"}) {
		t.Fatalf("Authorize was asked for %q, want r-7", authorized)
	}
}

// TestKeepAliveWhileWaiting: a stream waiting for its run's next event
// writes keep-alive comments, and the event still arrives after them.
func TestKeepAliveWhileWaiting(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	srv, _ := server(t, newHandler(t, log, Options{KeepAlive: 1}))
	appendRun(t, log, "r1", runtime.EventRunStarted, runtime.EventAwaiting)
	c := wantStream(t, srv.URL+"/?run=r1", "")
	got := c.events(t, 2)
	for {
		f, err := c.next()
		if err != nil {
			t.Fatal(err)
		}
		if !f.IsComment {
			t.Fatalf("an event no one appended: %+v", f)
		}
		if f.Comment == "keep-alive" {
			break
		}
	}
	appendRun(t, log, "r1", runtime.EventRunCancelled)
	got = append(got, c.rest(t)...)
	wantLog(t, log, "r1", got)
}

// TestClientGoneStopsFollower: a client that goes away while its stream
// waits for an event ends the handler, and frees its follower slot.
func TestClientGoneStopsFollower(t *testing.T) {
	log := newWatchedLog()
	srv, done := server(t, newHandler(t, log, Options{MaxFollowers: 1}))
	appendRun(t, log, "r1", runtime.EventRunStarted)
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := get(ctx, srv.URL+"/?run=r1", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	newSSEReader(resp.Body).events(t, 1)
	log.waitFor("r1", 1) // the handler waits for event 2
	cancel()
	<-done
	// The slot is free: another client streams.
	appendRun(t, log, "r1", runtime.EventRunCompleted)
	wantLog(t, log, "r1", wantStream(t, srv.URL+"/?run=r1", "").rest(t))
}

// TestStreamEndsWhenTheRunExpires: a run removed from the log while a
// stream waits for it ends the stream; reconnecting is then 404.
func TestStreamEndsWhenTheRunExpires(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	srv, _ := server(t, newHandler(t, log, Options{KeepAlive: 1, WaitForRun: -1}))
	appendRun(t, log, "r1", runtime.EventRunStarted, runtime.EventAwaiting)
	c := wantStream(t, srv.URL+"/?run=r1", "")
	c.events(t, 2)
	expired, err := log.Expire(context.Background(), record("r1", 3, runtime.EventPlanned).Time)
	if err != nil || len(expired) != 1 {
		t.Fatalf("Expire: %v, %v", expired, err)
	}
	if f, err := c.event(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the run expired: %+v, %v; want the stream's end", f, err)
	}
	if resp := open(t, srv.URL+"/?run=r1", "2"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("reconnecting: %s, want 404", resp.Status)
	}
}

// TestEventTypeCannotForgeFields: an event type in the log that is not a
// plain token — one carrying a line break and an id line — is sent
// without an event line; the ids stay the log's.
func TestEventTypeCannotForgeFields(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	srv, _ := server(t, newHandler(t, log, Options{}))
	appendRun(t, log, "r1", runtime.EventRunStarted, "x\nid: 99\nevent: run_completed", "a b", runtime.EventRunCompleted)
	got := wantStream(t, srv.URL+"/?run=r1", "").rest(t)
	if !slices.Equal(ids(got), []string{"1", "2", "3", "4"}) {
		t.Fatalf("ids %v", ids(got))
	}
	for _, i := range []int{1, 2} {
		if got[i].HasEvent {
			t.Errorf("event %d was sent with an event line: %+v", i+1, got[i])
		}
	}
	all, err := log.Read(context.Background(), "r1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := runtime.MarshalEvent(all[1])
	if got[1].Data != string(data) {
		t.Fatalf("data %s, want %s", got[1].Data, data)
	}
}

// TestEventName: what may be sent on an event line.
func TestEventName(t *testing.T) {
	for name, want := range map[string]bool{
		"run_started": true, "tool_result": true, "ns.kind:v2-x": true,
		"": false, "a b": false, "a\nb": false, "a\rb": false, "é": false,
		string(make([]byte, maxEventNameBytes+1)): false,
	} {
		if got := eventName(name); got != want {
			t.Errorf("eventName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestClientThatStopsReadingLosesItsStream: a client that holds its
// connection but reads nothing ends its stream once a write does not
// finish within WriteTimeout; without a deadline the handler would wait
// for it as long as it holds the connection.
func TestClientThatStopsReadingLosesItsStream(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	big := strings.Repeat("x", 64<<10)
	// 2 MiB, many times what the small socket buffers below hold unread.
	recs := make([]runtime.EventRecord, 32)
	for i := range recs {
		recs[i] = record("r1", int64(i+1), runtime.EventToolResult)
		recs[i].Data = json.RawMessage(`{"text":"` + big + `"}`)
	}
	if err := log.Append(context.Background(), "test-owner", recs); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	h := newHandler(t, log, Options{WriteTimeout: 200 * time.Millisecond})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		h.ServeHTTP(w, r)
	}))
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4096)
		}
		return c, err
	}}}
	resp, err := client.Get(srv.URL + "/?run=r1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatal(resp.Status)
	}
	<-done // the handler gave up while the client still holds the connection
}

// smallBuffers gives the connections it accepts a small send buffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetWriteBuffer(4096)
	}
	return c, err
}
