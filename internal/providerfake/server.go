package providerfake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
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
}

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
}

// New starts a server answering POSTs to path with answers, in order, and
// closes it when the test ends. A request that is not a POST to path, or
// one beyond the last answer, fails the test.
func New(t testing.TB, path string, answers ...Answer) *Server {
	t.Helper()
	s := &Server{t: t, path: path, answers: answers}
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
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	if a.Status != 0 {
		w.WriteHeader(a.Status)
	}
	_, _ = io.WriteString(w, a.Body)
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
