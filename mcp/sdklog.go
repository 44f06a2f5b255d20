package mcp

import (
	"context"
	"log/slog"
)

// sdkLogger is the logger the SDK's servers get: the server's, without the
// SDK's error record for a cancelled Run — how ServeStdio and
// ServeTransport stop a session, not a failure.
func sdkLogger(log *slog.Logger) *slog.Logger {
	return slog.New(quietCancel{log.Handler()})
}

type quietCancel struct{ slog.Handler }

func (q quietCancel) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "server run cancelled" {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q quietCancel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietCancel{q.Handler.WithAttrs(attrs)}
}

func (q quietCancel) WithGroup(name string) slog.Handler {
	return quietCancel{q.Handler.WithGroup(name)}
}
