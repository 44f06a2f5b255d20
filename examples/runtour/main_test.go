package main

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/quiver-go/quiver/examples/runtour/tour"
	"github.com/quiver-go/quiver/internal/examplecheck"
)

var update = flag.Bool("update", false, "rewrite testdata/tour.golden")

// TestTourOutput runs the tour and compares what it prints with the golden
// file: the bounded result with its projected bounds, the suspension with
// the rendered confirmation prompt, the continuation and the answer.
func TestTourOutput(t *testing.T) {
	var buf bytes.Buffer
	if err := tour.Run(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	examplecheck.Golden(t, buf.Bytes(), "testdata/tour.golden", *update)
}
