package server

import (
	"log/slog"
	"net/http"
	"time"
)

// The settings of HTTPServer.
const (
	// ReadHeaderTimeout bounds how long a request's headers may take.
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout closes a kept-alive connection idle that long.
	IdleTimeout = 2 * time.Minute
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes = 64 << 10
)

// HTTPServer returns the http.Server every registry node is served with:
// headers bounded in size (MaxHeaderBytes) and time (ReadHeaderTimeout),
// idle connections closed (IdleTimeout), net/http's errors logged at warn.
// It sets no ReadTimeout or WriteTimeout on purpose: a provider's call
// stream lasts as long as its lease and a call waits up to ten minutes for
// its outcome. Bodies have their own deadline and size limit per route, in
// the handler (Config.BodyTimeout, MaxBodyBytes, MaxPayloadBytes).
func HTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	if log == nil {
		log = slog.Default()
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
