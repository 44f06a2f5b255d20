package main

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/quiver-go/quiver/internal/examplecheck"
)

var update = flag.Bool("update", false, "rewrite testdata/transcript.golden")

// TestTranscript runs the example and compares its transcript with the
// golden file: the refused guess naming search_tools, the search with its
// discovery record, and the call that then runs.
func TestTranscript(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	examplecheck.Golden(t, buf.Bytes(), "testdata/transcript.golden", *update)
}
