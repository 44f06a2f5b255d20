package gateway

import (
	"strings"
	"sync"
)

// stderrTail keeps the end of a stdio server's standard error, so that a
// server failing to start says why ("npx: not found", a traceback) where
// its client only sees the connection end.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

// stderrTailBytes is how much of the end is kept.
const stderrTailBytes = 2048

// Write implements io.Writer; it never fails.
func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// take returns the last lines written since the previous take (at most
// three, joined with " | "), and forgets them.
func (t *stderrTail) take() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.FieldsFunc(string(t.buf), func(r rune) bool { return r == '\n' || r == '\r' })
	t.buf = t.buf[:0]
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " | ")
}
