package main

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// The tour on Temporal prints what it prints on the in-memory engine — the
// golden file examples/runtour pins — after the line naming the queue.
func TestTourOnTemporalPrintsTheTour(t *testing.T) {
	want, err := os.ReadFile("../../../../examples/runtour/testdata/tour.golden")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := cli(context.Background(), &buf, []string{"-engine", "temporal"}); err != nil {
		t.Fatal(err)
	}
	got, ok := bytes.CutPrefix(buf.Bytes(), []byte("[on Temporal: task queue quiver-runtour]\n"))
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("the tour printed\n%s\nwant\n%s", buf.Bytes(), want)
	}
}

func TestFlagsRefused(t *testing.T) {
	for _, args := range [][]string{{"-engine", "redis"}, {"extra"}} {
		if err := cli(context.Background(), &bytes.Buffer{}, args); err == nil {
			t.Errorf("runtour %q ran", args)
		}
	}
}
