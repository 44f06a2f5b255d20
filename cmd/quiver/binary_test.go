package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is the quiver binary the tests run, built once per run of the
// test binary into a temporary folder TestMain removes.
var built struct {
	once      sync.Once
	dir, path string
	err       error
	output    []byte
}

// quiverBinary returns the path of the quiver binary built from this
// package, building it on first use; it skips under -short.
func quiverBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs quiver")
	}
	goBin := goTool(t)
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "quiver-test-bin-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "quiver")
		built.output, built.err = exec.Command(goBin, "build", "-o", built.path, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.output)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
