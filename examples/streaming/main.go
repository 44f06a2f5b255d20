// Command streaming follows a run live over server-sent events, offline.
// An agent on the in-memory engine answers with a scripted model that
// streams like a provider — its text word by word, a call's arguments in
// pieces — and calls a tool that reports its progress. The program serves
// the run's events with runtime/runsse on a loopback port, behind a bearer
// token, and a client in the same program (net/http and a small SSE
// reader) follows the run from before it starts: it prints each event as
// it arrives, drops the connection after the 8th event on purpose,
// reconnects with Last-Event-ID and carries on. At the end it checks that
// it received exactly the run log's events, each once, in order, and that
// a request from the last id is answered 204 No Content: the run ended.
//
//	go run ./examples/streaming
package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/quiver-go/quiver/internal/httpauth"
	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/runsse"
)

// dropAfter is the event after which the client drops its first
// connection, to show a reconnect that misses nothing.
const dropAfter = 8

// maxConnections bounds the connections the client opens to follow the
// run: the one it drops, the one that finishes, and one more should a
// stream end early.
const maxConnections = 3

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "streaming:", err)
		os.Exit(1)
	}
}

// run serves the run's events, follows the run as a client and prints
// what the client sees to w. Nothing it prints depends on the time, the
// port or the token.
func run(ctx context.Context, w io.Writer) error {
	rt, err := newRuntime()
	if err != nil {
		return err
	}
	defer rt.Close()

	srv, err := serve(rt.RunLog())
	if err != nil {
		return err
	}
	defer srv.close()
	fmt.Fprintln(w, "server: the run log's events at GET /runs/{run}/events, on a loopback port, for a bearer token")

	// Returning cancels the client's requests, whatever their state.
	clientCtx, cancelClient := context.WithCancel(ctx)
	defer cancelClient()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	c := &client{
		// The token travels in the one bearer transport the repository
		// has; the anonymous client shows the refusal.
		authed: &http.Client{Transport: httpauth.BearerTransport{Key: srv.token, Base: transport}},
		anon:   &http.Client{Transport: transport},
		url:    srv.url + "/runs/" + runID + "/events",
		path:   "/runs/" + runID + "/events",
		print:  &printer{w: w},
	}

	// The client connects first: the server holds its request until
	// the run has an event (runsse.Options.WaitForRun).
	fmt.Fprintf(w, "client: GET %s, before the run starts\n", c.path)
	type response struct {
		resp *http.Response
		err  error
	}
	first := make(chan response, 1)
	go func() {
		resp, err := c.get(clientCtx, 0, true)
		first <- response{resp, err}
	}()
	select {
	case <-srv.arrived:
	case r := <-first:
		if r.err == nil {
			r.resp.Body.Close()
			r.err = fmt.Errorf("answered %s before the run started", r.resp.Status)
		}
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
	fmt.Fprintf(w, "app: the request is in; starting %s\n", runID)
	h, err := rt.Start(ctx, agentName, userInput(), runtime.WithRunID(runID))
	if err != nil {
		return err
	}
	r := <-first
	if r.err != nil {
		return r.err
	}
	got, err := c.follow(clientCtx, r.resp)
	if err != nil {
		return err
	}
	out, err := h.Wait(ctx)
	if err != nil {
		return err
	}

	// What the client holds is the run log, each event once, in order.
	logged, err := rt.RunLog().Read(ctx, runID, 0, 0)
	if err != nil {
		return err
	}
	if err := sameEvents(got, logged); err != nil {
		return err
	}
	fmt.Fprintf(w, "check: the client holds events 1..%d, none missing or repeated: the run log's %d events, record for record (run %s)\n", len(got), len(logged), out.Status)

	// From the last id there is nothing more: 204 tells a client (an
	// EventSource) to stop reconnecting.
	last := got[len(got)-1].seq
	resp, err := c.get(clientCtx, last, true)
	if err != nil {
		return err
	}
	resp.Body.Close()
	fmt.Fprintf(w, "client: GET %s with Last-Event-ID: %d -> %s\n", c.path, last, resp.Status)
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("a request after the run's last event was answered %s, want 204 No Content", resp.Status)
	}
	resp, err = c.get(clientCtx, 0, false)
	if err != nil {
		return err
	}
	resp.Body.Close()
	fmt.Fprintf(w, "client: GET %s without the token -> %s\n", c.path, resp.Status)
	if resp.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("a request without the token was answered %s, want 401 Unauthorized", resp.Status)
	}
	return nil
}

// server serves a run log's events over SSE on a loopback port.
type server struct {
	// url is where it listens (http://127.0.0.1:port).
	url string
	// token is the bearer token it asks for, random.
	token string
	// arrived is closed when the first request for events reaches it.
	arrived chan struct{}
	srv     *http.Server
	served  chan error
}

// serve starts a server of log's events at GET /runs/{run}/events for the
// holder of a token made now.
func serve(log runtime.RunLog) (*server, error) {
	s := &server{token: rand.Text(), arrived: make(chan struct{}), served: make(chan error, 1)}
	events, err := runsse.New(log, runsse.Options{
		Authorize: bearer(s.token),
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /runs/{run}/events", onFirstRequest(events, func() { close(s.arrived) }))
	ln, err := loopback.Listen()
	if err != nil {
		return nil, err
	}
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { s.served <- s.srv.Serve(ln) }()
	return s, nil
}

// close stops the server once its streams have ended (they end with the
// run, or when their client goes away).
func (s *server) close() {
	s.srv.Shutdown(context.Background())
	<-s.served
}

// unauthorized refuses a request without the token: runsse answers 401
// with its text ([runsse.Options.Authorize]).
type unauthorized struct{}

// Error says what to send.
func (unauthorized) Error() string { return "send Authorization: Bearer <token>" }

// StatusCode is 401 Unauthorized.
func (unauthorized) StatusCode() int { return http.StatusUnauthorized }

// bearer authorizes the requests that send token as a bearer token, to
// any run (an application would also check that the token's holder may
// read the run). The comparison takes the same time whatever the bytes
// sent.
func bearer(token string) func(*http.Request, string) error {
	want := []byte("Bearer " + token)
	return func(r *http.Request, _ string) error {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			return unauthorized{}
		}
		return nil
	}
}

// onFirstRequest calls arrived when the first request reaches h, before h
// serves it.
func onFirstRequest(h http.Handler, arrived func()) http.Handler {
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(arrived)
		h.ServeHTTP(w, r)
	})
}
