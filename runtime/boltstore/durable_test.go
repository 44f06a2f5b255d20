package boltstore_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSuspendedRunOutlivesItsProcess is the store's reason to be: a run
// suspends at a confirmation in one process, that process is killed
// (SIGKILL: nothing is flushed or closed), and a second process on the
// same data folder lists the run with its prompt, approves it, and the
// approved call runs exactly once to the scripted answer. A third process
// finds nothing waiting, and continuing the old run fails with
// runtime.ErrNotSuspended.
func TestSuspendedRunOutlivesItsProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program: skipped under -short")
	}
	prog := buildSuspendProg(t)
	data := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "executor.log")
	args := []string{"-data", data, "-log", logPath}

	// 1. Start: the run suspends; the program waits until killed.
	start := exec.Command(prog, append(args, "start")...)
	var startErr bytes.Buffer
	start.Stderr = &startErr
	stdout, err := start.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := start.Start(); err != nil {
		t.Fatal(err)
	}
	// A test failing before the kill below leaves no program behind.
	t.Cleanup(func() {
		if start.ProcessState == nil {
			start.Process.Kill()
			start.Wait()
		}
	})
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		start.Wait()
		t.Fatalf("start printed nothing; stderr: %s", startErr.String())
	}
	runID, ok := strings.CutPrefix(lines.Text(), "suspended ")
	if !ok || runID == "" {
		t.Fatalf("start printed %q, want \"suspended <run id>\"", lines.Text())
	}
	if err := start.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := start.Wait(); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("start ended with %v, want killed by SIGKILL", err)
	}
	if got := executed(t, logPath); len(got) != 0 {
		t.Fatalf("the call ran before it was approved: %q", got)
	}

	// 2. Approve, in a new process on the same folder.
	out, code := runProg(t, prog, append(args, "approve")...)
	if code != 0 {
		t.Fatalf("approve exited %d:\n%s", code, out)
	}
	for _, want := range []string{
		"waiting " + runID + " (agent desk): Cancel order A-1?",
		"approving " + runID,
		"final " + runID + ": Order A-1 is cancelled.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("approve's output lacks %q:\n%s", want, out)
		}
	}
	if got := executed(t, logPath); len(got) != 1 || !strings.HasPrefix(got[0], "cancelled A-1 ") {
		t.Fatalf("executor log = %q, want exactly one cancellation of A-1", got)
	}

	// 3. Again: nothing waits, and the old run cannot be continued twice.
	out, code = runProg(t, prog, append(args, "-run", runID, "approve")...)
	if code != 3 || !strings.Contains(out, "nothing waiting") || !strings.Contains(out, "run is not suspended") || !strings.Contains(out, runID) {
		t.Fatalf("approving %s again exited %d, want 3 (ErrNotSuspended), after \"nothing waiting\":\n%s", runID, code, out)
	}
	if got := executed(t, logPath); len(got) != 1 {
		t.Fatalf("executor log = %q after the second approve, want still one line", got)
	}
}

// buildSuspendProg builds internal/suspendprog into t's temporary folder.
func buildSuspendProg(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the test program: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "suspendprog")
	args := []string{"build", "-o", bin}
	if raceBuild {
		args = append(args, "-race")
	}
	build := exec.Command(goTool, append(args, "./internal/suspendprog")...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./internal/suspendprog: %v\n%s", err, out)
	}
	return bin
}

// runProg runs prog to its end and returns its stdout and stderr, and
// its exit status.
func runProg(t *testing.T, prog string, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(prog, args...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", prog, err)
	}
	return string(out), 0
}

// executed returns the executor's log lines (none when it never ran).
func executed(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSuffix(string(b), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
