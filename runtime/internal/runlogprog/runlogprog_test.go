package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/internal/ordersdesk"
	"github.com/quiver-go/quiver/runtime/redisstore"
	"github.com/quiver-go/quiver/toolcall"
)

// lease is the runtimes' lease in these tests: a killed process's run is
// recorded interrupted this long after its last renewal, plus a renewal
// period of the recovering runtime.
const lease = 300 * time.Millisecond

// buildProg builds this program into t's temporary folder.
func buildProg(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the test program: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "runlogprog")
	args := []string{"build", "-o", bin}
	if raceBuild {
		args = append(args, "-race")
	}
	if out, err := exec.Command(goTool, append(args, ".")...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// lines returns the lines of path (none when it does not exist).
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestKilledMidCallIsInterruptedNeverRunAgain: a process is SIGKILLed
// while its run's approved call executes. A new process on the same store
// records the run interrupted and the call outcome_unknown, and nothing
// runs the call again: the executor's count file shows one start.
func TestKilledMidCallIsInterruptedNeverRunAgain(t *testing.T) {
	prog := buildProg(t)
	t.Run("bolt", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), boltstore.FileName)
		killedMidCall(t, prog, []string{"-bolt", path}, func(t *testing.T) runtime.Store {
			s, err := boltstore.Open(path, boltstore.WithOpenTimeout(10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		srv := redistest.Start(t, redistest.Options{})
		prefix := redistest.NewPrefix()
		killedMidCall(t, prog, []string{"-redis", srv.URL(), "-prefix", prefix}, func(t *testing.T) runtime.Store {
			s, err := redisstore.Open(context.Background(), srv.URL(), redisstore.WithPrefix(prefix))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
}

func killedMidCall(t *testing.T, prog string, storeArgs []string, open func(*testing.T) runtime.Store) {
	ctx := context.Background()
	count := filepath.Join(t.TempDir(), "calls.log")
	cmd := exec.Command(prog, append(storeArgs, "-lease", lease.String(), "-log", count, "-run", "r-killed", "hang")...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); len(lines(t, count)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the call never started in the other process")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	started := lines(t, count)
	callID := strings.Fields(started[0])[1]

	store := open(t)
	rt, err := ordersdesk.New(store, ordersdesk.Script(), ordersdesk.LoggingExecutor(count), runtime.WithRunLease(lease))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var info runtime.RunInfo
	for deadline := time.Now().Add(30 * time.Second); info.Status != runtime.StatusInterrupted; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed run is still %s in the log", info.Status)
		}
		if info, err = store.RunLog().Run(ctx, "r-killed"); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := store.RunLog().Read(ctx, "r-killed", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := recs[len(recs)-1].Event()
	interrupted, ok := last.(runtime.RunInterrupted)
	if !ok || len(interrupted.UnknownCalls) != 1 || interrupted.UnknownCalls[0] != callID || interrupted.Owner == rt.Owner() {
		t.Fatalf("last event = %+v; want run_interrupted naming the killed owner and call %s", last, callID)
	}
	unknown, _ := recs[len(recs)-2].Event()
	if r, ok := unknown.(runtime.ToolResultReceived); !ok || r.CallID != callID || r.Failure == nil || r.Failure.Code != toolcall.KindOutcomeUnknown {
		t.Fatalf("event before the interruption = %+v; want call %s's outcome_unknown result", unknown, callID)
	}
	// Nothing continues or re-runs it, then or a lease later.
	if _, err := rt.Continue(ctx, "r-killed", runtime.PendingInputResponse{}); err == nil {
		t.Fatal("the interrupted run could be continued")
	}
	time.Sleep(3 * lease)
	if got := lines(t, count); len(got) != 1 {
		t.Fatalf("the executor's count file: %q; want the one start", got)
	}
	if after, _ := store.RunLog().Read(ctx, "r-killed", 0, 0); len(after) != len(recs) {
		t.Fatalf("%d events after the recovery, then %d", len(recs), len(after))
	}
}

// TestFollowerInAnotherProcessMissesNothing: followers in other processes
// read a run on Redis. The first, started before the run, leaves after
// three events; the second follows on from its cursor to the run's
// suspension; the third, once the continuation has ended, reads the rest
// from there: together they read every event, in order, each once — what
// the run's own subscribers saw.
func TestFollowerInAnotherProcessMissesNothing(t *testing.T) {
	prog := buildProg(t)
	srv := redistest.Start(t, redistest.Options{})
	prefix := redistest.NewPrefix()
	ctx := context.Background()
	store, err := redisstore.Open(ctx, srv.URL(), redisstore.WithPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rt, err := ordersdesk.New(store, ordersdesk.Script(), ordersdesk.LoggingExecutor(filepath.Join(t.TempDir(), "calls.log")))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var emitted []string
	defer rt.Subscribe(func(e runtime.Event) { emitted = append(emitted, string(e.Type())) })()

	follower := func(after int64, maxEvents int) *exec.Cmd {
		cmd := exec.Command(prog, "-redis", srv.URL(), "-prefix", prefix, "-run", "r-followed", "-after", itoa(after), "-max", itoa(int64(maxEvents)), "follow")
		cmd.Stderr = os.Stderr
		return cmd
	}
	var seen []runtime.EventRecord
	collect := func(cmd *exec.Cmd, out *bufio.Scanner) {
		t.Helper()
		for out.Scan() {
			var rec runtime.EventRecord
			if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
				t.Fatalf("follower printed %q: %v", out.Text(), err)
			}
			seen = append(seen, rec)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("follower: %v", err)
		}
	}
	start := func(cmd *exec.Cmd) *bufio.Scanner {
		t.Helper()
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return bufio.NewScanner(pipe)
	}

	// The first follower waits for a run that has not started.
	first := follower(0, 3)
	firstOut := start(first)
	out, err := rt.Run(ctx, ordersdesk.Agent, runtime.RunInput{Messages: []model.Message{model.UserMessage("Cancel A-1.")}}, runtime.WithRunID("r-followed"))
	if err != nil || out.Suspension == nil {
		t.Fatalf("run: %+v, %v; want suspended", out, err)
	}
	collect(first, firstOut)
	if len(seen) != 3 {
		t.Fatalf("the first follower read %d events, want 3", len(seen))
	}
	second := follower(seen[len(seen)-1].Seq, 0)
	collect(second, start(second))
	// The third starts once the continuation has ended: started before
	// it, it could find the run still suspended with nothing after its
	// cursor, and leave, as a follower of a suspended run does.
	h, err := rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	third := follower(seen[len(seen)-1].Seq, 0)
	collect(third, start(third))

	if len(seen) != len(emitted) {
		t.Fatalf("the followers read %d events; the run emitted %d (%v)", len(seen), len(emitted), emitted)
	}
	for i, rec := range seen {
		if rec.Seq != int64(i+1) || string(rec.Type) != emitted[i] {
			t.Fatalf("event %d read as %d %s; the run emitted %s", i+1, rec.Seq, rec.Type, emitted[i])
		}
	}
	if seen[len(seen)-1].Type != runtime.EventRunCompleted {
		t.Fatalf("the last event read is %s, want run_completed", seen[len(seen)-1].Type)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
