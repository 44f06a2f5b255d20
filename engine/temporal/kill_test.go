package temporal_test

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/engine/temporal/internal/killdesk"
	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/internal/testbuild"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

// killRig is one worker-kill test: a task queue, Redis stores, a journal,
// worker subprocesses, and a runtime in the test process that starts,
// continues and follows runs without running any.
type killRig struct {
	t       *testing.T
	queue   string
	redis   *redistest.Server
	prefix  string
	journal string
	rt      *runtime.Runtime
	store   *redisstore.Store
}

func newKillRig(t *testing.T) *killRig {
	t.Helper()
	r := &killRig{t: t, queue: newQueue(t), redis: redistest.Start(t, redistest.Options{}),
		prefix: redistest.NewPrefix(), journal: filepath.Join(t.TempDir(), "journal")}
	store, err := redisstore.Open(context.Background(), r.redis.URL(), redisstore.WithPrefix(r.prefix))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	r.store = store
	starter, err := temporal.NewStarter(testClient, r.queue, killdesk.EngineOptions(time.Second, 0))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &killdesk.Config{Journal: r.journal}
	rt, err := runtime.New(runtime.WithEngine(starter), runtime.WithStore(store), runtime.WithModel(model.ModelClassDefault, killdesk.Model(cfg)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	if err := killdesk.Register(rt, cfg); err != nil {
		t.Fatal(err)
	}
	r.rt = rt
	return r
}

// worker is one worker subprocess.
type worker struct {
	cmd   *exec.Cmd
	owner string
	pid   int
}

// startWorker starts a worker process, told to block at block ("" for
// none), and waits until it polls.
func (r *killRig) startWorker(block string) *worker {
	r.t.Helper()
	return r.startWorkerWith(block, 5)
}

// startWorkerWith is startWorker with attempts tries per activity (0: the
// runtime's own).
func (r *killRig) startWorkerWith(block string, attempts int) *worker {
	r.t.Helper()
	bin := testbuild.Binary(r.t, "./internal/workerproc")
	cmd := exec.Command(bin, "-address", server.GetFrontendHostPort(), "-namespace", server.GetDefaultNamespace(),
		"-queue", r.queue, "-redis", r.redis.URL(), "-prefix", r.prefix, "-journal", r.journal, "-block", block, "-heartbeat", "1s", "-attempts", fmt.Sprint(attempts))
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		r.t.Fatalf("worker did not start: %v\n%s", err, stderr.String())
	}
	owner, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
	if !ok {
		r.t.Fatalf("worker said %q\n%s", line, stderr.String())
	}
	return &worker{cmd: cmd, owner: owner, pid: cmd.Process.Pid}
}

// kill kills w with SIGKILL and waits for it to be gone.
func (w *worker) kill(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = w.cmd.Wait()
}

// waitJournal waits until the journal holds a line of pid with the fields
// given after it.
func (r *killRig) waitJournal(pid int, fields ...string) {
	r.t.Helper()
	want := fmt.Sprint(pid) + " " + strings.Join(fields, " ")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		lines, err := killdesk.Journal(r.journal)
		if err != nil {
			r.t.Fatal(err)
		}
		for _, l := range lines {
			if strings.Join(l, " ") == want {
				return
			}
		}
	}
	r.t.Fatalf("the journal never held %q", want)
}

// count returns how many journal lines start with these fields after the
// pid, and the pids that wrote them.
func (r *killRig) count(fields ...string) (int, []string) {
	r.t.Helper()
	lines, err := killdesk.Journal(r.journal)
	if err != nil {
		r.t.Fatal(err)
	}
	n, pids := 0, []string(nil)
	for _, l := range lines {
		if len(l) > len(fields) && strings.Join(l[1:len(fields)+1], " ") == strings.Join(fields, " ") {
			n++
			pids = append(pids, l[0])
		}
	}
	return n, pids
}

// follow reads the run's events from the run log as a follower in another
// process would, checking they are numbered 1, 2, … with none repeated,
// and returns the messages of its tool_progress events (the pid of the
// worker that ran each attempt) in order.
func (r *killRig) follow(runID string) (types []runtime.EventType, progress []string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var next int64 = 1
	err := runtime.FollowRunLog(ctx, r.store.RunLog(), runID, 0, func(rec runtime.EventRecord) error {
		if rec.Seq != next {
			return fmt.Errorf("event %d follows event %d", rec.Seq, next-1)
		}
		next++
		types = append(types, rec.Type)
		if rec.Type == runtime.EventToolProgress {
			e, err := rec.Event()
			if err != nil {
				return err
			}
			progress = append(progress, e.(runtime.ToolProgress).Message)
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return types, progress
}

// run starts a run of scenario and returns its handle.
func (r *killRig) start(scenario string) *runtime.RunHandle {
	r.t.Helper()
	h, err := r.rt.Start(context.Background(), "desk", runtime.RunInput{Messages: []model.Message{model.UserMessage(scenario)}})
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

// wait waits for the run to end and checks it completed with the desk's
// answer to scenario.
func (r *killRig) wait(h *runtime.RunHandle, scenario string) *runtime.RunOutput {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := h.Wait(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	if out.Status != runtime.StatusCompleted || out.Final == nil || out.Final.Text != "done: "+scenario {
		r.t.Fatalf("run ended %s %s with %+v", out.Status, out.Reason, out.Final)
	}
	return out
}

// A worker killed in the middle of a tool call: the run completes on a new
// worker, the call ran once per attempt (twice, with one tool call id) and
// its idempotent effect happened once; a follower reads the attempts'
// progress from both processes, in order.
func TestWorkerKilledInAToolCall(t *testing.T) {
	t.Parallel()
	r := newKillRig(t)
	a := r.startWorker(killdesk.BlockTool)
	h := r.start(killdesk.ScenarioTool)
	r.waitJournal(a.pid, "blocked", killdesk.BlockTool)
	a.kill(t)
	b := r.startWorker("")
	r.wait(h, killdesk.ScenarioTool)

	lines, _ := killdesk.Journal(r.journal)
	var charges, effects []string
	for _, l := range lines {
		switch {
		case len(l) == 4 && l[1] == "exec" && l[2] == "orders.charge":
			charges = append(charges, l[0]+" "+l[3])
		case len(l) == 3 && l[1] == "effect":
			effects = append(effects, l[0]+" "+l[2])
		}
	}
	if len(charges) != 2 || strings.Fields(charges[0])[1] != strings.Fields(charges[1])[1] {
		t.Fatalf("charge executions %q, want two attempts of one call", charges)
	}
	if want := fmt.Sprint(a.pid); strings.Fields(charges[0])[0] != want {
		t.Fatalf("first execution by %s, want the killed worker %s", charges[0], want)
	}
	if len(effects) != 1 || strings.Fields(effects[0])[0] != fmt.Sprint(b.pid) {
		t.Fatalf("effects %q, want one, by the new worker %d", effects, b.pid)
	}
	_, progress := r.follow(h.RunID)
	if want := []string{fmt.Sprintf("pid %d", a.pid), fmt.Sprintf("pid %d", b.pid)}; strings.Join(progress, ",") != strings.Join(want, ",") {
		t.Fatalf("follower read progress %q, want %q", progress, want)
	}
	info, err := r.store.RunLog().Run(context.Background(), h.RunID)
	if err != nil || info.Owner != b.owner {
		t.Fatalf("run recorded last by %q (%v), want the new worker %q", info.Owner, err, b.owner)
	}
}

// A worker killed between two planning steps — in the second, after the
// tool call's result was recorded: the run completes on a new worker, the
// tool ran once (its activity had completed), the step ran again.
func TestWorkerKilledBetweenPlanningSteps(t *testing.T) {
	t.Parallel()
	r := newKillRig(t)
	a := r.startWorker(killdesk.BlockPlan)
	h := r.start(killdesk.ScenarioPlan)
	r.waitJournal(a.pid, "blocked", killdesk.BlockPlan)
	a.kill(t)
	r.startWorker("")
	r.wait(h, killdesk.ScenarioPlan)
	if n, pids := r.count("exec", "orders.getOrder"); n != 1 || pids[0] != fmt.Sprint(a.pid) {
		t.Fatalf("getOrder ran %d times (by %v), want once, by the killed worker", n, pids)
	}
	types, _ := r.follow(h.RunID)
	if types[len(types)-1] != runtime.EventRunCompleted {
		t.Fatalf("events %v", types)
	}
}

// A worker killed while a child workflow runs (the clerk agent, called as
// a tool, in its own tool call): parent and child complete on a new
// worker, and the child's result reaches the parent once.
func TestWorkerKilledInAChildWorkflow(t *testing.T) {
	t.Parallel()
	r := newKillRig(t)
	a := r.startWorker(killdesk.BlockChild)
	h := r.start(killdesk.ScenarioChild)
	r.waitJournal(a.pid, "blocked", killdesk.BlockChild)
	a.kill(t)
	r.startWorker("")
	out := r.wait(h, killdesk.ScenarioChild)
	results := toolResults(out.Messages)
	if len(results) != 1 || !strings.Contains(results[0], "clerk: where is A-1?") {
		t.Fatalf("the parent read %q, want the child's answer once", results)
	}
	if n, _ := r.count("exec", "orders.getOrder"); n != 2 {
		t.Fatalf("the child's tool ran %d times, want twice (once per attempt)", n)
	}
	types, _ := r.follow(h.RunID)
	if n := countOf(types, runtime.EventToolResult); n != 1 {
		t.Fatalf("the parent recorded %d tool results, want 1: %v", n, types)
	}
}

// Every worker down while a run is suspended for a confirmation, then
// Continue, in the test process, against a fresh worker: the run
// completes and the approved call runs once.
func TestEveryWorkerDownWhileSuspended(t *testing.T) {
	t.Parallel()
	r := newKillRig(t)
	a := r.startWorker("")
	h := r.start(killdesk.ScenarioConfirm)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := h.Wait(ctx)
	if err != nil || out.Status != runtime.StatusSuspended {
		t.Fatalf("run = %+v, %v; want it suspended", out, err)
	}
	a.kill(t)
	r.startWorker("")
	h2, err := r.rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve())
	if err != nil {
		t.Fatal(err)
	}
	r.wait(h2, killdesk.ScenarioConfirm)
	if n, _ := r.count("exec", "orders.cancelOrder"); n != 1 {
		t.Fatalf("cancelOrder ran %d times, want once", n)
	}
}

func countOf(types []runtime.EventType, t runtime.EventType) int {
	n := 0
	for _, x := range types {
		if x == t {
			n++
		}
	}
	return n
}

// With the runtime's own policy — one attempt per tool call — a call whose
// worker was killed is not run again: the model reads that it timed out,
// the run completes on a new worker, and the effect never happened.
func TestWorkerKilledInAToolCallWithOneAttempt(t *testing.T) {
	t.Parallel()
	r := newKillRig(t)
	a := r.startWorkerWith(killdesk.BlockTool, 0)
	h := r.start(killdesk.ScenarioTool)
	r.waitJournal(a.pid, "blocked", killdesk.BlockTool)
	a.kill(t)
	r.startWorkerWith("", 0)
	out := r.wait(h, killdesk.ScenarioTool)
	if n, pids := r.count("exec", "orders.charge"); n != 1 || pids[0] != fmt.Sprint(a.pid) {
		t.Fatalf("charge ran %d times (by %v), want once, by the killed worker", n, pids)
	}
	if n, _ := r.count("effect"); n != 0 {
		t.Fatalf("%d effects, want none", n)
	}
	results := toolResults(out.Messages)
	if len(results) != 1 || !strings.Contains(results[0], "timeout") {
		t.Fatalf("the model read %q, want the call's timeout", results)
	}
}
