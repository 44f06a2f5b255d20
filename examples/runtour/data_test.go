package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/examplecheck"
	"github.com/quiver-go/quiver/runtime/boltstore"
)

// runIDs matches the run ids the runtime assigns.
var runIDs = regexp.MustCompile(`run-[0-9a-f]{8}-[0-9]+`)

// normalize replaces the data folder and the run id, which differ at
// every run, so that the output compares with a golden file.
func normalize(out []byte, dir string) []byte {
	out = bytes.ReplaceAll(out, []byte(dir), []byte("DIR"))
	return runIDs.ReplaceAll(out, []byte("RUN"))
}

// TestTourOnDisk plays runtour --data DIR, then --data DIR --approve, on one
// folder: the first stops at the confirmation with the run kept in
// DIR/runs.db and its store closed; the second, with a new runtime and
// store, lists the run, approves it and finishes the tour with the same
// answer and usage as the in-memory tour. A third finds nothing waiting.
func TestTourOnDisk(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()

	var suspended bytes.Buffer
	if err := cli(ctx, &suspended, []string{"--data", dir}); err != nil {
		t.Fatal(err)
	}
	ids := runIDs.FindAllString(suspended.String(), -1)
	if len(ids) == 0 {
		t.Fatalf("--data printed no run id:\n%s", suspended.String())
	}
	examplecheck.Golden(t, normalize(suspended.Bytes(), dir), "testdata/data-suspend.golden", *update)
	if _, err := os.Stat(filepath.Join(dir, boltstore.FileName)); err != nil {
		t.Fatalf("--data left no store file: %v", err)
	}

	var approved bytes.Buffer
	if err := cli(ctx, &approved, []string{"--data", dir, "--approve"}); err != nil {
		t.Fatalf("--approve: %v\n%s", err, approved.String())
	}
	if !strings.Contains(approved.String(), "operator: approve "+ids[0]) {
		t.Fatalf("--approve did not approve %s, the run --data suspended:\n%s", ids[0], approved.String())
	}
	examplecheck.Golden(t, normalize(approved.Bytes(), dir), "testdata/data-approve.golden", *update)

	var again bytes.Buffer
	err := cli(ctx, &again, []string{"--data", dir, "--approve"})
	if err == nil || !strings.Contains(err.Error(), "no run is waiting") || !strings.Contains(err.Error(), "--data "+dir) {
		t.Fatalf("a second --approve: %v, want \"no run is waiting\" and how to start one\n%s", err, again.String())
	}
}

// TestTourOnDiskWithTheFileHeld: a folder another process (here, another
// open store) holds is refused with ErrInUse, nothing run.
func TestTourOnDiskWithTheFileHeld(t *testing.T) {
	dir := t.TempDir()
	held, err := boltstore.Open(filepath.Join(dir, boltstore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	var out bytes.Buffer
	if err := cli(context.Background(), &out, []string{"--data", dir}); !errors.Is(err, boltstore.ErrInUse) {
		t.Fatalf("--data on a held folder: %v, want ErrInUse", err)
	}
	if out.Len() != 0 {
		t.Fatalf("--data on a held folder ran the tour:\n%s", out.String())
	}
}

// TestFlagsRefused: --approve needs a folder, and nothing else is taken.
func TestFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--approve"}, "give it with --data DIR"},
		{[]string{"--data", t.TempDir(), "now"}, `unexpected argument "now"`},
	} {
		var out bytes.Buffer
		if err := cli(context.Background(), &out, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("runtour %s: %v, want an error saying %q", strings.Join(tc.args, " "), err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("runtour %s ran the tour:\n%s", strings.Join(tc.args, " "), out.String())
		}
	}
}
