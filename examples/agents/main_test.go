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
// golden file: the planner's call of forecast runs the forecaster as a
// child run on the call's payload, the forecaster's own tool call, and the
// planner's answer built from the forecaster's.
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
	examplecheck.GeneratedCurrent(t, "github.com/quiver-go/quiver/examples/agents/design", "examples/agents",
		"go run goa.design/goa/v3/cmd/goa gen github.com/quiver-go/quiver/examples/agents/design -o examples/agents")
}
