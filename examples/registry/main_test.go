package main

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/quiver-go/quiver/internal/examplecheck"
)

var update = flag.Bool("update", false, "rewrite testdata/transcript.golden")

// TestTranscript runs the example against its in-process registry and
// compares what it prints with the golden file: the toolset published
// mid-run found at the next step, the replaced provider's
// admission_conflict read by the model and the call made again, the
// pinned version refused.
func TestTranscript(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	examplecheck.Golden(t, buf.Bytes(), "testdata/transcript.golden", *update)
}

// TestGeneratedCodeIsCurrent checks that gen/ and AGENTS_QUICKSTART.md are
// what goa gen writes from the design now, and that they build.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	examplecheck.GeneratedCurrent(t, "github.com/quiver-go/quiver/examples/registry/design", "examples/registry",
		"go run goa.design/goa/v3/cmd/goa gen github.com/quiver-go/quiver/examples/registry/design -o examples/registry")
}
