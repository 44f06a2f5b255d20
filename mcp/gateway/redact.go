package gateway

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// minSecretLen is the shortest value redacted: shorter ones ("1", "on")
// are settings, not secrets, and replacing them would garble every
// message.
const minSecretLen = 4

// redacted stands for a secret in what the gateway says.
const redacted = "[redacted]"

// secrets are the values of one configuration that must never be logged
// or echoed in an error: whatever ${VAR} expanded to, every env value and
// every header value.
type secrets struct {
	mu     sync.Mutex
	values []string // longest first, so a secret inside another is not half-replaced
}

// add records v as a secret.
func (s *secrets) add(v string) {
	if len(v) < minSecretLen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.values, v) {
		return
	}
	s.values = append(s.values, v)
	slices.SortFunc(s.values, func(a, b string) int { return len(b) - len(a) })
}

// scrub returns text with every secret replaced by the redacted marker.
func (s *secrets) scrub(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.values {
		text = strings.ReplaceAll(text, v, redacted)
	}
	return text
}

// scrubError returns err with its text scrubbed (nil for nil); errors.Is
// still finds what err wraps.
func (s *secrets) scrubError(err error) error {
	if err == nil {
		return nil
	}
	msg := s.scrub(err.Error())
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{msg: msg, err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// handler returns a log handler that scrubs every message and string
// value before inner sees it.
func (s *secrets) handler(inner slog.Handler) slog.Handler {
	return &scrubHandler{s: s, inner: inner}
}

type scrubHandler struct {
	s     *secrets
	inner slog.Handler
}

func (h *scrubHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.s.scrub(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *scrubHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.s.scrub(v.String()))
	case slog.KindGroup:
		attrs := v.Group()
		out := make([]any, len(attrs))
		for i, g := range attrs {
			out[i] = h.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.s.scrub(err.Error()))
		}
		return slog.String(a.Key, h.s.scrub(v.String()))
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h *scrubHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = h.attr(a)
	}
	return &scrubHandler{s: h.s, inner: h.inner.WithAttrs(out)}
}

func (h *scrubHandler) WithGroup(name string) slog.Handler {
	return &scrubHandler{s: h.s, inner: h.inner.WithGroup(name)}
}
