package providerfake

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Answer is one scripted HTTP answer.
type Answer struct {
	// Status is the HTTP status; 200 when 0.
	Status int
	// Body is the response body, usually built by one of the builders.
	Body string
	// Header holds response headers to set; Content-Type is
	// application/json unless set here (text/event-stream for a stream).
	Header map[string]string
	// Events, when set, make the answer a stream written event by event
	// (text/event-stream unless Header says otherwise), each flushed as it
	// is written, each held until its Wait channel is closed; Body is
	// ignored. See [Event].
	Events []Event
	// Cut drops the connection once the events are written, without
	// ending the response: a stream cut off mid-way.
	Cut bool
}

// Event is one event of a streamed answer.
type Event struct {
	// Name is the SSE event name ("event:" line; none when empty).
	Name string
	// Data is the event's data ("data:" line).
	Data string
	// Raw, when set, is written as it is instead of an SSE event (the
	// frames of a binary event stream).
	Raw []byte
	// Wait, when not nil, holds the event back until it is closed (or
	// the client goes away): a test releases the stream piece by piece.
	Wait <-chan struct{}
}

// Stream is a 200 answer streaming events.
func Stream(events ...Event) Answer { return Answer{Status: http.StatusOK, Events: events} }

// SSE is a server-sent event with a name and JSON data.
func SSE(name, data string) Event { return Event{Name: name, Data: data} }

// OK is a 200 answer with body.
func OK(body string) Answer { return Answer{Status: http.StatusOK, Body: body} }

// Request is one request the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Server is a local provider: it answers POSTs to one path with its
// scripted answers, in order, and records every request.
type Server struct {
	t    testing.TB
	path string
	srv  *httptest.Server

	mu      sync.Mutex
	answers []Answer
	next    int
	reqs    []Request
	gone    map[int]chan struct{} // by request index, see Gone
}

// New starts a server answering POSTs to path with answers, in order, and
// closes it when the test ends. A request that is not a POST to path, or
// one beyond the last answer, fails the test.
func New(t testing.TB, path string, answers ...Answer) *Server {
	t.Helper()
	s := &Server{t: t, path: path, answers: answers, gone: map[int]chan struct{}{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("reading a request body: %v", err)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	n := len(s.reqs)
	gone := s.goneLocked(n - 1)
	wrongPath := r.Method != http.MethodPost || r.URL.Path != s.path
	var a Answer
	scripted := !wrongPath && s.next < len(s.answers)
	if scripted {
		a = s.answers[s.next]
		s.next++
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case wrongPath:
		s.t.Errorf("request %d: %s %s, want POST %s", n, r.Method, r.URL.Path, s.path)
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`)
		return
	case !scripted:
		s.t.Errorf("unscripted request %d (%d answers scripted): %s", n, len(s.answers), body)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"message":"no answer scripted","type":"test"}}`)
		return
	}
	if a.Events == nil && (a.Status == 0 || a.Status == http.StatusOK) && asksForStream(r, body) {
		events, contentType, ok := streamOf([]byte(a.Body))
		if !ok {
			s.t.Errorf("request %d asks for a stream and its scripted answer is not a provider response the fake can stream: %.200s", n, a.Body)
		}
		if strings.HasSuffix(r.URL.Path, "/invoke-with-response-stream") {
			// Claude on Bedrock: the Messages events in Bedrock's frames.
			events, contentType = AnthropicBedrockEvents(events), BedrockStreamContentType
		}
		a.Events = events
		if _, set := a.Header["Content-Type"]; !set {
			a.Header = mergeHeader(a.Header, "Content-Type", contentType)
		}
	}
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	if a.Events != nil {
		// A client that goes away before its stream is written whole
		// is reported by Gone.
		if !s.stream(w, r, a) {
			close(gone)
		}
		return
	}
	if a.Status != 0 {
		w.WriteHeader(a.Status)
	}
	_, _ = io.WriteString(w, a.Body)
}

// stream writes a's events one by one, flushing each, holding each until
// its Wait is closed, and drops the connection after them when a.Cut. It
// reports whether it wrote them all (the client stayed).
func (s *Server) stream(w http.ResponseWriter, r *http.Request, a Answer) bool {
	if _, set := a.Header["Content-Type"]; !set {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.Header().Set("Cache-Control", "no-cache")
	if a.Status != 0 {
		w.WriteHeader(a.Status)
	}
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	for _, e := range a.Events {
		if e.Wait != nil {
			select {
			case <-e.Wait:
			case <-r.Context().Done():
				return false
			}
		}
		var err error
		if e.Raw != nil {
			_, err = w.Write(e.Raw)
		} else {
			_, err = io.WriteString(w, formatSSE(e))
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			return false
		}
	}
	if a.Cut {
		// Hijack and close: the client reads a connection that ends
		// without the stream's end.
		if conn, _, err := rc.Hijack(); err == nil {
			_ = conn.Close()
		} else {
			panic(http.ErrAbortHandler)
		}
	}
	return true
}

// formatSSE writes e as a server-sent event.
func formatSSE(e Event) string {
	var b strings.Builder
	if e.Name != "" {
		b.WriteString("event: " + e.Name + "\n")
	}
	for _, line := range strings.Split(e.Data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// asksForStream reports whether a request asks for a streamed answer: a
// JSON body with "stream": true, or a path of a streaming operation
// (Bedrock's converse-stream and invoke-with-response-stream).
func asksForStream(r *http.Request, body []byte) bool {
	if strings.HasSuffix(r.URL.Path, "-stream") {
		return true
	}
	var v struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(body, &v) == nil && v.Stream
}

// streamOf turns a whole provider answer into the events its provider
// would have streamed for it, with the stream's content type: each
// provider's file knows its shape.
func streamOf(body []byte) ([]Event, string, bool) {
	for _, convert := range []func([]byte) ([]Event, string, bool){openAIStreamOf, anthropicStreamOf, chatStreamOf, bedrockStreamOf} {
		if events, contentType, ok := convert(body); ok {
			return events, contentType, true
		}
	}
	return nil, "", false
}

func mergeHeader(h map[string]string, k, v string) map[string]string {
	out := maps.Clone(h)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}

// Gone returns a channel closed when the client of request i (0-based)
// goes away before its streamed answer is written whole — a stream the
// client closed or cancelled, seen at a held event or a failed write.
// Request i need not have arrived yet.
func (s *Server) Gone(i int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.goneLocked(i)
}

func (s *Server) goneLocked(i int) chan struct{} {
	ch, ok := s.gone[i]
	if !ok {
		ch = make(chan struct{})
		s.gone[i] = ch
	}
	return ch
}

// URL is the server's base URL, without a path.
func (s *Server) URL() string { return s.srv.URL }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Close shuts the server down before the test ends, for tests of what a
// client does when its provider is gone.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Request returns request i (0-based), failing the test when fewer
// arrived.
func (s *Server) Request(i int) Request {
	s.t.Helper()
	reqs := s.Requests()
	if i >= len(reqs) {
		s.t.Fatalf("the provider received %d requests, want at least %d", len(reqs), i+1)
	}
	return reqs[i]
}

// Body returns the body of request i (0-based) decoded as a JSON object,
// failing the test when it is missing or not one.
func (s *Server) Body(i int) map[string]any {
	s.t.Helper()
	raw := s.Request(i).Body
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		s.t.Fatalf("request %d is not a JSON object: %v\n%s", i+1, err, raw)
	}
	return m
}
