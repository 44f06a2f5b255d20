package testbuild

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// built are the programs built by this test binary, by package path.
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*program
}

type program struct {
	once sync.Once
	bin  string
	out  []byte
	err  error
}

// Binary builds the main package pkg (a path go build accepts from the
// test's working folder, e.g. "../internal/testserver", or the package's
// absolute folder) once per test binary and returns the executable's path; a build that fails fails t
// with go build's output.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	built.mu.Lock()
	if built.bins == nil {
		built.bins = map[string]*program{}
	}
	p := built.bins[pkg]
	if p == nil {
		p = &program{}
		built.bins[pkg] = p
	}
	built.mu.Unlock()
	p.once.Do(func() { p.bin, p.out, p.err = build(pkg) })
	if p.err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, p.err, p.out)
	}
	return p.bin
}

func build(pkg string) (string, []byte, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", nil, err
	}
	built.mu.Lock()
	if built.dir == "" {
		built.dir, err = os.MkdirTemp("", "testbuild")
	}
	dir := built.dir
	built.mu.Unlock()
	if err != nil {
		return "", nil, err
	}
	name := path.Base(filepath.ToSlash(pkg))
	sub, err := os.MkdirTemp(dir, name)
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(sub, name)
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool, append(args, pkg)...)
	if filepath.IsAbs(pkg) {
		// Built from its own folder, in its module, wherever the test
		// changed its working folder to.
		cmd = exec.Command(goTool, append(args, ".")...)
		cmd.Dir = pkg
	}
	out, err := cmd.CombinedOutput()
	return bin, out, err
}

// Cleanup removes what Binary built; call it from TestMain after m.Run.
func Cleanup() {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
		built.dir = ""
	}
}
