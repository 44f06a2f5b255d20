package main

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/quiver-go/quiver/internal/examplecheck"
)

var update = flag.Bool("update", false, "rewrite testdata/transcript.golden")

// TestTranscript runs the example and compares what it prints with the
// golden file: the clerk's place call reaches Place with the nested order
// converted (defaults filled), its result converted back and the nested
// summary projected as server data; the desk's receipt call reaches
// GetReceipt through the passthrough executor, with no run of the clerk.
func TestTranscript(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf); err != nil {
		t.Fatalf("%v\nprinted:\n%s", err, buf.Bytes())
	}
	examplecheck.Golden(t, buf.Bytes(), "testdata/transcript.golden", *update)
}

// TestGeneratedCodeIsCurrent checks that gen/ and AGENTS_QUICKSTART.md are
// what goa gen writes from the design now, and that they build.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	examplecheck.GeneratedCurrent(t, "github.com/quiver-go/quiver/examples/shop/design", "examples/shop",
		"go run goa.design/goa/v3/cmd/goa gen github.com/quiver-go/quiver/examples/shop/design -o examples/shop")
}
