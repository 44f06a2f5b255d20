package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"
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
	if *update {
		if err := os.WriteFile("testdata/transcript.golden", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/transcript.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("transcript differs from testdata/transcript.golden (run with -update after checking):\n%s", buf.String())
	}
}
