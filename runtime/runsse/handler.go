package runsse

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/quiver-go/quiver/internal/httpguard"
	"github.com/quiver-go/quiver/runtime"
)

// retryAfter is the Retry-After of a 503 over Options.MaxFollowers, in
// seconds.
const retryAfter = "5"

// handler serves one run's events per request ([New]).
type handler struct {
	log  runtime.RunLog
	opts Options
	// slots holds a token per stream served: its capacity is
	// Options.MaxFollowers.
	slots chan struct{}
}

// New returns the handler that serves a run's events from log as
// Server-Sent Events (see the package documentation for the wire form and
// the answers). It fails when log is nil, when opts.Authorize is nil, or
// when an option is out of range, saying which.
func New(log runtime.RunLog, opts Options) (http.Handler, error) {
	if log == nil {
		return nil, errors.New("runsse: the run log is nil: pass the runtime's (Runtime.RunLog) or the store's run log")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &handler{log: log, opts: o, slots: make(chan struct{}, o.MaxFollowers)}, nil
}

// ServeHTTP implements [http.Handler].
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		h.refuse(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("runsse: method %s: run events are read with GET", quote(r.Method)))
		return
	}
	runID := h.opts.RunID(r)
	if err := checkRunID(runID); err != nil {
		h.refuse(w, r, http.StatusBadRequest, err.Error())
		return
	}
	after, err := requestCursor(r)
	if err != nil {
		h.refuse(w, r, http.StatusBadRequest, err.Error())
		return
	}
	if !h.opts.AllowCrossOrigin {
		if httpguard.CheckOrigin(r) != nil {
			h.refuse(w, r, http.StatusForbidden, fmt.Sprintf("runsse: a request from a page of another origin (Origin %s, Sec-Fetch-Site %s): follow runs from this server's own pages, or have the application set Options.AllowCrossOrigin and answer CORS itself",
				quote(r.Header.Get("Origin")), quote(r.Header.Get("Sec-Fetch-Site"))))
			return
		}
	}
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		w.Header().Set("Retry-After", retryAfter)
		h.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("runsse: %d streams are served already, the most this server allows: retry later", h.opts.MaxFollowers))
		return
	}
	if err := h.opts.Authorize(r, runID); err != nil {
		h.refuseAuthorize(w, r, runID, err)
		return
	}
	info, ok := h.findRun(w, r, runID)
	if !ok {
		return
	}
	switch {
	case info.Status.Ended() && after >= info.LastSeq:
		// Nothing follows: 204 stops EventSource reconnecting.
		w.WriteHeader(http.StatusNoContent)
		return
	case after > info.LastSeq:
		h.refuse(w, r, http.StatusBadRequest, fmt.Sprintf("runsse: the cursor %d is past run %s's last event, %d: resume from the id of the last event this run's stream sent", after, quote(runID), info.LastSeq))
		return
	}
	s, err := h.open(w, r)
	if err != nil {
		h.opts.Logger.Error("runsse: cannot stream", "err", err)
		h.refuse(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	h.stream(r.Context(), s, runID, after)
}

// findRun returns the run's info, waiting up to Options.WaitForRun for a
// run with no event yet; when it reports false it has answered the
// request, or the client went away.
func (h *handler) findRun(w http.ResponseWriter, r *http.Request, runID string) (runtime.RunInfo, bool) {
	ctx := r.Context()
	info, err := h.log.Run(ctx, runID)
	if errors.Is(err, runtime.ErrUnknownRun) {
		var has bool
		if has, err = h.log.Wait(ctx, runID, 0, h.opts.WaitForRun); err == nil && has {
			info, err = h.log.Run(ctx, runID)
		} else if err == nil {
			h.refuse(w, r, http.StatusNotFound, fmt.Sprintf("runsse: run %s has no event: it is not started yet, or it expired, or the id is wrong", quote(runID)))
			return info, false
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			h.opts.Logger.Warn("runsse: reading the run log", "run", runID, "err", err)
			h.refuse(w, r, http.StatusInternalServerError, "runsse: the run log could not be read: the server's log says why; retry later")
		}
		return info, false
	}
	return info, true
}

// refuseAuthorize answers a request Options.Authorize refused.
func (h *handler) refuseAuthorize(w http.ResponseWriter, r *http.Request, runID string, err error) {
	var sc interface{ StatusCode() int }
	if errors.As(err, &sc) && sc.StatusCode() >= 400 && sc.StatusCode() <= 599 {
		h.refuse(w, r, sc.StatusCode(), err.Error())
		return
	}
	h.opts.Logger.Info("runsse: Authorize refused a request", "run", runID, "err", err)
	h.refuse(w, r, http.StatusForbidden, fmt.Sprintf("runsse: this request may not read run %s's events", quote(runID)))
}

// refuse answers a request with status and a plain-text message.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.opts.Logger.Debug("runsse: request refused", "status", status, "path", r.URL.Path, "why", msg)
	http.Error(w, msg, status)
}

// open checks that w can stream under Options.WriteTimeout, then writes
// the stream's headers and flushes them.
func (h *handler) open(w http.ResponseWriter, r *http.Request) (*sseWriter, error) {
	if !canFlush(w) {
		return nil, errors.New("runsse: the ResponseWriter cannot flush, so events cannot be streamed: mount the handler where the writer is net/http's, or a middleware's that implements Flush or Unwrap() http.ResponseWriter")
	}
	s := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: h.opts.WriteTimeout}
	if err := s.setDeadline(); err != nil {
		return nil, fmt.Errorf("runsse: the ResponseWriter cannot take a write deadline (%v): mount the handler where the writer is net/http's, or a middleware's that implements Unwrap() http.ResponseWriter, or set Options.WriteTimeout negative to stream without one", err)
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if err := s.rc.Flush(); err != nil {
		h.opts.Logger.Debug("runsse: flushing the stream's headers", "path", r.URL.Path, "err", err)
	}
	return s, nil
}

// canFlush reports whether w, or a writer it wraps, flushes, as
// http.ResponseController looks for it.
func canFlush(w http.ResponseWriter) bool {
	for range 32 {
		switch t := w.(type) {
		case interface{ FlushError() error }, http.Flusher:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
	return false
}

// logStreamEnd logs why a stream ended early: at warn level when the log
// failed, at debug level when the client did.
func (h *handler) logStreamEnd(ctx context.Context, runID string, after int64, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	level := slog.LevelWarn
	if errors.Is(err, errClient) {
		level = slog.LevelDebug // a client that went away, or stopped reading
	}
	h.opts.Logger.LogAttrs(ctx, level, "runsse: stream ended early; the client resumes from its last event",
		slog.String("run", runID), slog.Int64("after", after), slog.Any("err", err))
}

// deadlineFrom returns when a write started now must end (zero: never).
func deadlineFrom(now time.Time, timeout time.Duration) time.Time {
	if timeout < 0 {
		return time.Time{}
	}
	return now.Add(timeout)
}
