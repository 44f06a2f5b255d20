package redisstore_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

// TestTwoProcessesRaceContinue: a run suspends for a confirmation in one
// process (internal/raceprog start); two other processes list it and,
// released at once, both Continue it with the operator's approval. The
// store lets one take the checkpoint: exactly one prints "completed", the
// other "not suspended", and the order is cancelled once (the executor's
// file has one line).
func TestTwoProcessesRaceContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("builds internal/raceprog and runs it three times")
	}
	t.Parallel()
	bin := buildRaceprog(t)
	srv := redistest.Start(t, redistest.Options{AOF: true})
	prefix := redistest.NewPrefix()
	logFile := filepath.Join(t.TempDir(), "executor.log")
	flags := []string{"-redis", srv.URL(), "-prefix", prefix, "-log", logFile}

	out, err := exec.Command(bin, append(flags, "start")...).Output()
	if err != nil {
		t.Fatalf("raceprog start: %v\n%s", err, stderrOf(err))
	}
	runID := strings.TrimSpace(string(out))
	if runID == "" {
		t.Fatal("raceprog start printed no run id")
	}

	type proc struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
		stderr bytes.Buffer
	}
	procs := make([]*proc, 2)
	for i := range procs {
		p := &proc{cmd: exec.Command(bin, append(flags, "-barrier", "continue", runID)...)}
		p.cmd.Stderr = &p.stderr
		if p.stdin, err = p.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		stdout, err := p.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.stdout = bufio.NewReader(stdout)
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
		procs[i] = p
	}
	// Both have listed the run before either continues it.
	for i, p := range procs {
		if line, err := p.stdout.ReadString('\n'); line != "ready\n" {
			p.cmd.Wait()
			t.Fatalf("continue process %d: %q, %v, want ready\n%s", i, line, err, p.stderr.String())
		}
	}
	for _, p := range procs {
		p.stdin.Write([]byte("go\n"))
	}
	var outcomes []string
	for i, p := range procs {
		rest, _ := io.ReadAll(p.stdout)
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("continue process %d: %v\n%s", i, err, p.stderr.String())
		}
		outcomes = append(outcomes, strings.TrimSpace(string(rest)))
	}
	slices.Sort(outcomes)
	if want := []string{"completed: Order A-1 is cancelled.", "not suspended"}; !slices.Equal(outcomes, want) {
		t.Fatalf("the two continue processes printed %q, want %q", outcomes, want)
	}
	if got, err := os.ReadFile(logFile); err != nil || strings.Count(string(got), "\n") != 1 || !strings.HasPrefix(string(got), "cancelled A-1 ") {
		t.Fatalf("executor file = %q, %v; want one line, cancelled A-1", got, err)
	}
	s := open(t, srv, redisstore.WithPrefix(prefix))
	if left, err := s.List(t.Context(), runtime.SuspendedFilter{}); err != nil || len(left) != 0 {
		t.Fatalf("suspended after the race: %+v, %v; want none", left, err)
	}
}

// buildRaceprog builds internal/raceprog into a temporary folder, with the
// race detector when this test binary has it (the build cache then holds
// the packages already).
func buildRaceprog(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "raceprog")
	args := []string{"build", "-o", bin}
	if raceEnabled() {
		args = append(args, "-race")
	}
	start := time.Now()
	if out, err := exec.Command("go", append(args, "./internal/raceprog")...).CombinedOutput(); err != nil {
		t.Fatalf("go build ./internal/raceprog (the go command must be on PATH): %v\n%s", err, out)
	}
	t.Logf("go build ./internal/raceprog: %v", time.Since(start).Round(time.Millisecond))
	return bin
}

func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// stderrOf is the standard error of a command that exited with err.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
