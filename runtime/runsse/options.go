package runsse

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// Defaults of [Options].
const (
	DefaultKeepAlive    = 15 * time.Second
	DefaultMaxFollowers = 64
	DefaultWaitForRun   = 10 * time.Second
	DefaultWriteTimeout = 30 * time.Second
)

// Options configures the handler [New] returns. Authorize is required;
// every other field has a default.
type Options struct {
	// Authorize decides whether the request may read the run's events:
	// nil lets it, an error refuses it. It is required ([New] fails
	// without it) and runs before anything is read from the run log or
	// written to the client. An error answers 403 with a fixed message
	// (the error itself goes to Logger only); an error implementing
	// interface{ StatusCode() int } with a 4xx or 5xx code answers that
	// status (401 for a missing or expired credential) with the error's
	// text as the body, so write that text for the client.
	Authorize func(r *http.Request, runID string) error
	// RunID extracts the run id from the request. By default it is
	// r.PathValue("run") when the route names a {run} wildcard and it is
	// set, else the "run" query parameter.
	RunID func(r *http.Request) string
	// AllowCrossOrigin lets browsers read the stream from pages of other
	// origins; the application's CORS handling then decides which. By
	// default a request a browser sends from another origin (Sec-Fetch-Site
	// other than same-origin or none, or an Origin that is not the
	// request's Host) is refused with 403 before it takes a follower slot,
	// so that a page on another site cannot hold the user's slots.
	AllowCrossOrigin bool
	// KeepAlive is how long a stream waits for an event before it writes a
	// ": keep-alive" comment, which keeps proxies from closing it and
	// finds clients that went away (DefaultKeepAlive when 0).
	KeepAlive time.Duration
	// MaxFollowers bounds the streams served at once, waiting for their
	// run included; a request over it is answered 503 with Retry-After
	// (DefaultMaxFollowers when 0).
	MaxFollowers int
	// WaitForRun is how long a request for a run with no event yet waits
	// for its first before it is answered 404 (DefaultWaitForRun when 0; a
	// negative value answers at once): a client may connect before the run
	// it started has recorded anything.
	WaitForRun time.Duration
	// WriteTimeout bounds each write to the client, headers included
	// (http.ResponseController.SetWriteDeadline): a client that stops
	// reading loses its stream and its slot (DefaultWriteTimeout when 0).
	// A ResponseWriter that cannot take a deadline (a middleware's writer
	// without Unwrap) is answered 500 saying so; a negative WriteTimeout
	// streams without deadlines, and then only the server's own timeouts
	// bound a stuck client.
	WriteTimeout time.Duration
	// Logger receives what goes wrong (slog.Default() when nil): refusals
	// at debug level, Authorize's with its error at info, clients that
	// went away or stopped reading at debug, run log failures at warn, a
	// ResponseWriter that cannot stream at error. Request headers, and so
	// credentials, are never logged.
	Logger *slog.Logger
}

// withDefaults returns o with its defaults filled in, or what is wrong
// with it.
func (o Options) withDefaults() (Options, error) {
	if o.Authorize == nil {
		return o, fmt.Errorf("runsse: Options.Authorize is nil: give a function that checks the request's credentials for the run (return nil to allow, an error to refuse)")
	}
	if o.KeepAlive < 0 {
		return o, fmt.Errorf("runsse: Options.KeepAlive is %v: give a positive interval, or 0 for %v", o.KeepAlive, DefaultKeepAlive)
	}
	if o.MaxFollowers < 0 {
		return o, fmt.Errorf("runsse: Options.MaxFollowers is %d: give a positive bound, or 0 for %d", o.MaxFollowers, DefaultMaxFollowers)
	}
	if o.RunID == nil {
		o.RunID = defaultRunID
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.MaxFollowers == 0 {
		o.MaxFollowers = DefaultMaxFollowers
	}
	if o.WaitForRun == 0 {
		o.WaitForRun = DefaultWaitForRun
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}

// defaultRunID is Options.RunID's default: the {run} path wildcard, else
// the "run" query parameter.
func defaultRunID(r *http.Request) string {
	if id := r.PathValue("run"); id != "" {
		return id
	}
	return r.URL.Query().Get("run")
}
