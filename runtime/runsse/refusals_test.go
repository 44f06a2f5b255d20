package runsse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quiver-go/quiver/runtime"
)

// statusErr is an Authorize error that names its status.
type statusErr struct {
	code int
	msg  string
}

func (e statusErr) Error() string   { return e.msg }
func (e statusErr) StatusCode() int { return e.code }

// refusal is a request and the answer it must get.
type refusal struct {
	name   string
	method string
	target string
	header http.Header
	status int
	// body must be in the answer.
	body string
}

// wantRefusal sends rf to srv and checks its status, that its body says
// what was wrong, and that it is no event stream; it returns the answer
// and its body.
func wantRefusal(t *testing.T, srv string, rf refusal) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(cmpOr(rf.method, http.MethodGet), srv+rf.target, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range rf.header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != rf.status || !strings.Contains(string(b), rf.body) {
		t.Errorf("%s: %s %q, want %d with %q", rf.name, resp.Status, b, rf.status, rf.body)
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") || strings.Contains(string(b), "data:") {
		t.Errorf("%s: streamed (Content-Type %q): %q", rf.name, ct, b)
	}
	return resp, string(b)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestRefusalsBeforeTheLog: a request refused for its method, run id,
// cursor, origin or by Authorize is answered with a message saying what
// was wrong, and nothing is read from the run log.
func TestRefusalsBeforeTheLog(t *testing.T) {
	log := newWatchedLog()
	appendRun(t, log, "r1", runtime.EventRunStarted)
	log.reads.Store(0)
	var authorized atomic.Int64
	srv, _ := server(t, newHandler(t, log, Options{Authorize: func(r *http.Request, run string) error {
		authorized.Add(1)
		switch r.Header.Get("Authorization") {
		case "Bearer good":
			return nil
		case "":
			return statusErr{http.StatusUnauthorized, "send Authorization: Bearer <token>"}
		}
		return errors.New("token revoked in the user database (internal detail)")
	}}))
	good := http.Header{"Authorization": {"Bearer good"}}
	long := strings.Repeat("r", maxRunIDBytes+1)
	for _, rf := range []refusal{
		{name: "POST", method: http.MethodPost, target: "/?run=r1", header: good, status: 405, body: "GET"},
		{name: "HEAD", method: http.MethodHead, target: "/?run=r1", header: good, status: 405},
		{name: "no run", target: "/", header: good, status: 400, body: "no run id"},
		{name: "control in run", target: "/?run=r%0A1", header: good, status: 400, body: "control character"},
		{name: "long run", target: "/?run=" + long, header: good, status: 400, body: "over 1024"},
		{name: "non-UTF-8 run", target: "/?run=%FF", header: good, status: 400, body: "not UTF-8"},
		{name: "word cursor", target: "/?run=r1", header: http.Header{"Last-Event-Id": {"abc"}, "Authorization": {"Bearer good"}}, status: 400, body: `Last-Event-ID "abc" is not a non-negative integer`},
		{name: "negative cursor", target: "/?run=r1&after=-1", header: good, status: 400, body: `after "-1" is not a non-negative integer`},
		{name: "signed cursor", target: "/?run=r1&after=%2B1", header: good, status: 400, body: `after "+1"`},
		{name: "fraction", target: "/?run=r1&after=1.5", header: good, status: 400, body: "decimal digits"},
		{name: "huge cursor", target: "/?run=r1&after=99999999999999999999", header: good, status: 400, body: "too large"},
		{name: "empty after", target: "/?run=r1&after=", header: good, status: 400, body: "after is empty"},
		{name: "after twice", target: "/?run=r1&after=1&after=2", header: good, status: 400, body: "given 2 times"},
		{name: "cross-site", target: "/?run=r1", header: http.Header{"Sec-Fetch-Site": {"cross-site"}, "Authorization": {"Bearer good"}}, status: 403, body: "AllowCrossOrigin"},
		{name: "other origin", target: "/?run=r1", header: http.Header{"Origin": {"https://evil.example"}, "Authorization": {"Bearer good"}}, status: 403, body: "evil.example"},
	} {
		wantRefusal(t, srv.URL, rf)
	}
	if n := authorized.Load(); n != 0 {
		t.Errorf("Authorize was asked %d times for requests refused before it", n)
	}
	for _, rf := range []refusal{
		{name: "no credential", target: "/?run=r1", status: 401, body: "send Authorization: Bearer <token>"},
		{name: "refused", target: "/?run=r1", header: http.Header{"Authorization": {"Bearer bad"}}, status: 403, body: `may not read run "r1"`},
		{name: "refused, unknown run", target: "/?run=nope", header: http.Header{"Authorization": {"Bearer bad"}}, status: 403, body: `may not read run "nope"`},
	} {
		wantRefusal(t, srv.URL, rf)
	}
	if n := log.reads.Load(); n != 0 {
		t.Errorf("refused requests read the run log %d times", n)
	}
	// A 403 does not repeat Authorize's error, which is for the log.
	if _, body := wantRefusal(t, srv.URL, refusal{name: "detail", target: "/?run=r1", header: http.Header{"Authorization": {"Bearer bad"}}, status: 403}); strings.Contains(body, "internal detail") {
		t.Errorf("a 403 repeats Authorize's error: %q", body)
	}
	// The same request with a good credential and cursor streams.
	resp, err := get(context.Background(), srv.URL+"/?run=r1&after=0", "", good)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("allowed: %s", resp.Status)
	}
}

// TestAllowCrossOrigin: with AllowCrossOrigin, a request from another
// origin is the application's to judge.
func TestAllowCrossOrigin(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	appendRun(t, log, "r1", runtime.EventRunStarted, runtime.EventRunCompleted)
	srv, _ := server(t, newHandler(t, log, Options{AllowCrossOrigin: true}))
	resp, err := get(context.Background(), srv.URL+"/?run=r1", "", http.Header{"Origin": {"https://app.example"}, "Sec-Fetch-Site": {"cross-site"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s", resp.Status)
	}
	wantLog(t, log, "r1", newSSEReader(resp.Body).rest(t))
}

// TestMaxFollowers: over MaxFollowers, a request is answered 503 with
// Retry-After, before Authorize; once a stream ends, its slot serves
// another.
func TestMaxFollowers(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	appendRun(t, log, "r1", runtime.EventRunStarted)
	var authorized atomic.Int64
	srv, done := server(t, newHandler(t, log, Options{MaxFollowers: 2, Authorize: func(*http.Request, string) error {
		authorized.Add(1)
		return nil
	}}))
	first := wantStream(t, srv.URL+"/?run=r1", "")
	first.events(t, 1)
	wantStream(t, srv.URL+"/?run=r1", "").events(t, 1)
	resp, _ := wantRefusal(t, srv.URL, refusal{name: "third", target: "/?run=r1", status: 503, body: "2 streams are served already"})
	if resp.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	<-done // the refusal
	if n := authorized.Load(); n != 2 {
		t.Errorf("Authorize was asked %d times, want 2: the refused request must not reach it", n)
	}
	appendRun(t, log, "r1", runtime.EventRunCompleted)
	first.rest(t)
	<-done // one stream ended
	wantStream(t, srv.URL+"/?run=r1", "").rest(t)
}

// TestUnknownRun: a run with no event is 404 once WaitForRun has passed;
// one whose first event comes within it is streamed.
func TestUnknownRun(t *testing.T) {
	log := newWatchedLog()
	srv, _ := server(t, newHandler(t, log, Options{WaitForRun: 1}))
	wantRefusal(t, srv.URL, refusal{name: "unknown", target: "/?run=nope", status: 404, body: `run "nope" has no event`})

	srv2, _ := server(t, newHandler(t, log, Options{WaitForRun: 1 << 62}))
	type result struct {
		got []sseFrame
		err error
	}
	res := make(chan result, 1)
	go func() {
		resp, err := get(context.Background(), srv2.URL+"/?run=later", "", nil)
		if err != nil {
			res <- result{err: err}
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			res <- result{err: errors.New(resp.Status)}
			return
		}
		var got []sseFrame
		c := newSSEReader(resp.Body)
		for {
			f, err := c.event()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				res <- result{err: err}
				return
			}
			got = append(got, f)
		}
		res <- result{got: got}
	}()
	log.waitFor("later", 0)
	appendRun(t, log, "later", runtime.EventRunStarted, runtime.EventRunCompleted)
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	wantLog(t, log, "later", r.got)
}

// TestCursorAtTheEnd: a cursor at or past the end of an ended run is 204
// No Content (EventSource stops reconnecting); past the end of a run that
// has not ended, 400.
func TestCursorAtTheEnd(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	appendRun(t, log, "ended", runtime.EventRunStarted, runtime.EventRunCompleted)
	appendRun(t, log, "suspended", runtime.EventRunStarted, runtime.EventAwaiting)
	srv, _ := server(t, newHandler(t, log, Options{}))
	for _, target := range []string{"/?run=ended&after=2", "/?run=ended&after=7"} {
		resp := open(t, srv.URL+target, "")
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusNoContent || len(b) != 0 {
			t.Errorf("%s: %s %q, want 204", target, resp.Status, b)
		}
	}
	wantRefusal(t, srv.URL, refusal{name: "past", target: "/?run=suspended", header: http.Header{"Last-Event-Id": {"3"}}, status: 400, body: "past run \"suspended\"'s last event, 2"})
	// At the end of a suspended run, the stream waits for its continuation.
	c := wantStream(t, srv.URL+"/?run=suspended", "2")
	appendRun(t, log, "suspended", runtime.EventConfirmation, runtime.EventRunCompleted)
	if got := ids(c.rest(t)); len(got) != 2 || got[0] != "3" || got[1] != "4" {
		t.Fatalf("ids %v, want 3 and 4", got)
	}
}

// TestWritersWithoutDeadlines: a ResponseWriter that cannot take a write
// deadline is answered 500 saying how to fix it; with WriteTimeout
// negative it streams.
func TestWritersWithoutDeadlines(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	appendRun(t, log, "r1", runtime.EventRunStarted, runtime.EventRunCompleted)
	req := httptest.NewRequest(http.MethodGet, "/?run=r1", nil)

	rec := httptest.NewRecorder()
	newHandler(t, log, Options{}).ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "WriteTimeout negative") {
		t.Fatalf("%d %q", rec.Code, rec.Body)
	}

	rec = httptest.NewRecorder()
	newHandler(t, log, Options{WriteTimeout: -1}).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %q", rec.Code, rec.Body)
	}
	wantLog(t, log, "r1", newSSEReader(rec.Body).rest(t))

	rec = httptest.NewRecorder()
	newHandler(t, log, Options{WriteTimeout: -1}).ServeHTTP(noFlush{rec}, req)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "cannot flush") {
		t.Fatalf("%d %q", rec.Code, rec.Body)
	}
}

// noFlush hides its writer's Flush.
type noFlush struct{ w http.ResponseWriter }

func (n noFlush) Header() http.Header         { return n.w.Header() }
func (n noFlush) Write(b []byte) (int, error) { return n.w.Write(b) }
func (n noFlush) WriteHeader(code int)        { n.w.WriteHeader(code) }

// TestNewRefuses: New says what is wrong with its arguments.
func TestNewRefuses(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	for _, tc := range []struct {
		log  runtime.RunLog
		o    Options
		want string
	}{
		{nil, Options{Authorize: allow}, "run log is nil"},
		{log, Options{}, "Authorize is nil"},
		{log, Options{Authorize: allow, KeepAlive: -1}, "KeepAlive is -1ns"},
		{log, Options{Authorize: allow, MaxFollowers: -1}, "MaxFollowers is -1"},
	} {
		if _, err := New(tc.log, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestOrderOfChecks: a request wrong in several ways is answered for the
// first check it fails: method, run id and cursor, slot, Authorize, run.
func TestOrderOfChecks(t *testing.T) {
	log := runtime.NewMemoryRunLog()
	appendRun(t, log, "r1", runtime.EventRunStarted)
	srv, _ := server(t, newHandler(t, log, Options{MaxFollowers: 1, WaitForRun: -1, Authorize: func(r *http.Request, _ string) error {
		if r.URL.Query().Get("deny") != "" {
			return errors.New("denied")
		}
		return nil
	}}))
	// A stream holds the only slot.
	wantStream(t, srv.URL+"/?run=r1", "").events(t, 1)
	for _, rf := range []refusal{
		{name: "method before cursor", method: http.MethodPut, target: "/?run=r1&after=x", status: 405},
		{name: "cursor before slot", target: "/?run=r1&after=x", status: 400},
		{name: "slot before Authorize", target: "/?run=nope&deny=1", status: 503},
	} {
		wantRefusal(t, srv.URL, rf)
	}
	srv2, _ := server(t, newHandler(t, log, Options{WaitForRun: -1, Authorize: func(r *http.Request, _ string) error {
		return errors.New("denied")
	}}))
	wantRefusal(t, srv2.URL, refusal{name: "Authorize before run", target: "/?run=" + url.QueryEscape("no such run"), status: 403})
}
