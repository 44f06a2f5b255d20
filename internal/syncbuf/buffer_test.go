package syncbuf_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/internal/syncbuf"
)

// TestWritersAndAReader: writes from many goroutines all arrive while
// String reads (the race detector checks the locking).
func TestWritersAndAReader(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("x", 800) {
		t.Fatalf("read %d bytes, want 800", len(got))
	}
}
