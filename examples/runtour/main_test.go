package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/tour.golden")

// TestTourOutput runs the tour and compares what it prints with the golden
// file: the bounded result with its projected bounds, the suspension with
// the rendered confirmation prompt, the continuation and the answer.
func TestTourOutput(t *testing.T) {
	var buf bytes.Buffer
	if err := tour(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("testdata/tour.golden", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/tour.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("output differs from testdata/tour.golden (run with -update after checking):\n%s", buf.String())
	}
}
