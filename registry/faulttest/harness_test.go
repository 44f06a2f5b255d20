package faulttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
)

// drainTimeout bounds an in-process provider's graceful drain when a test
// ends (the default, 30s, would hold a test whose registry is gone).
const drainTimeout = 5 * time.Second

// execLog is an executor of Echo's tools that appends "<call id>\n" to its
// log file (O_APPEND, then fsync) before it runs a call, so the record of
// an execution survives the provider being killed in the middle of it.
type execLog struct {
	f    *os.File
	work *registrytest.Counter
	// held maps call ids to a channel their execution waits for after it
	// is logged (holdUntil); set before the provider serves, read only.
	held map[string]<-chan struct{}
}

// holdUntil makes the executions of ids wait, once started and logged,
// until release is closed: a test that needs a call to be in a provider's
// hands at a given moment says so instead of guessing from durations.
// Call it before the provider serves.
func (e *execLog) holdUntil(release <-chan struct{}, ids ...string) {
	if e.held == nil {
		e.held = map[string]<-chan struct{}{}
	}
	for _, id := range ids {
		e.held[id] = release
	}
}

func openExecLog(path string) (*execLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &execLog{f: f, work: registrytest.NewCounter()}, nil
}

// newExecLog opens the execution log dir/name.exec for an in-process
// provider; it is closed when the test ends.
func newExecLog(t *testing.T, dir, name string) (*execLog, string) {
	t.Helper()
	path := filepath.Join(dir, name+".exec")
	e, err := openExecLog(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, path
}

func (e *execLog) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	if _, err := e.f.WriteString(call.Meta.ToolCallID + "\n"); err != nil {
		return nil, fmt.Errorf("faulttest: execution log: %w", err)
	}
	if err := e.f.Sync(); err != nil {
		return nil, fmt.Errorf("faulttest: execution log: %w", err)
	}
	if release, ok := e.held[call.Meta.ToolCallID]; ok {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return e.work.Execute(ctx, call)
}

func (e *execLog) Close() error { return e.f.Close() }

// executions reads execution logs (provider name → path): how many times
// each provider started each call id.
func executions(t *testing.T, logs map[string]string) map[string]map[string]int {
	t.Helper()
	runs := map[string]map[string]int{}
	for name, path := range logs {
		for _, id := range readLines(t, path) {
			if runs[id] == nil {
				runs[id] = map[string]int{}
			}
			runs[id][name]++
		}
	}
	return runs
}

// readLines reads a log's non-empty lines (a missing file has none).
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func total(byProvider map[string]int) int {
	n := 0
	for _, c := range byProvider {
		n += c
	}
	return n
}

// checkExecutions fails when a call id was started twice (by one provider
// or across providers) or a call that ended ok was not started exactly
// once.
func checkExecutions(t *testing.T, runs map[string]map[string]int, results []result) {
	t.Helper()
	for id, by := range runs {
		if total(by) > 1 {
			t.Errorf("call %s ran %d times: %v", id, total(by), by)
		}
	}
	for _, r := range results {
		if r.name == "ok" && total(runs[r.id]) != 1 {
			t.Errorf("call %s ended ok but ran %d times: %v", r.id, total(runs[r.id]), runs[r.id])
		}
	}
}

// waitLines waits until the log at path has at least n lines.
func waitLines(t *testing.T, path string, n int, within time.Duration) []string {
	t.Helper()
	var lines []string
	eventually(t, within, fmt.Sprintf("%d executions in %s", n, filepath.Base(path)), func() bool {
		lines = readLines(t, path)
		return len(lines) >= n
	})
	return lines
}

// proc is the test binary running one role (TestMain), its stdout and
// stderr in a log file the test prints when it fails.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// startProc runs the test binary as a role, with env added to this
// process's environment. The process is killed when the test ends.
func startProc(t *testing.T, name string, env ...string) *proc {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatal(err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			p.dump(t)
		}
	})
	return p
}

// kill ends the process with SIGKILL and waits for it to be gone.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// dump logs the end of the process's output.
func (p *proc) dump(t *testing.T) {
	lines := readLines(t, p.log)
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	t.Logf("--- %s (pid %d, %v) output, last %d lines:\n%s", p.name, p.cmd.Process.Pid, p.err, len(lines), strings.Join(lines, "\n"))
}

// startRegistryProc runs a registry process on addr, on the backend b
// (its data in dir for bolt).
func startRegistryProc(t *testing.T, b *backend, name, addr, dir string, leaseTTL, grace time.Duration) *proc {
	t.Helper()
	env := append([]string{roleEnv + "=registry", addrEnv + "=" + addr,
		leaseTTLEnv + "=" + leaseTTL.String(), graceEnv + "=" + grace.String()}, b.env(dir)...)
	p := startProc(t, name, env...)
	waitReady(t, p, "http://"+addr)
	return p
}

// startProviderProc runs a provider process of Echo("echo") at revision,
// logging its executions to execLog.
func startProviderProc(t *testing.T, name, url, revision string, maxInFlight int, execLog string) *proc {
	t.Helper()
	return startProc(t, name, roleEnv+"=provider", urlEnv+"="+url, revisionEnv+"="+revision,
		providerEnv+"="+name, maxInFlightEnv+"="+strconv.Itoa(maxInFlight), execLogEnv+"="+execLog)
}

// waitReady polls a registry process's /readyz, and fails the test when
// another process answers on its address.
func waitReady(t *testing.T, p *proc, url string) {
	t.Helper()
	hc := &http.Client{Timeout: time.Second}
	eventually(t, 15*time.Second, p.name+" ready", func() bool {
		if p.exited() {
			t.Fatalf("%s exited before it was ready: %v", p.name, p.err)
		}
		resp, err := hc.Get(url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		if pid := resp.Header.Get(pidHeader); pid != strconv.Itoa(p.cmd.Process.Pid) {
			t.Fatalf("%s: %s is served by process %q, not by %s (pid %d)", p.name, url, pid, p.name, p.cmd.Process.Pid)
		}
		return resp.StatusCode == http.StatusOK
	})
}

// eventually polls cond every few milliseconds for up to within.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s (waited %s)", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// result is what a consumer ended with for one call id.
type result struct {
	id, token string
	// name is "ok" or "tool_error", a registry error name, or "" when the
	// consumer got no final answer before the test's deadline.
	name string
	err  error
	// attempts counts the requests sent under the call id; transport
	// counts those that ended with a transport error, refused those
	// answered unavailable or overloaded.
	attempts, transport, refused int
	// node is the index of the node that gave the final answer, switched
	// how many times the consumer moved to another node (callThrough).
	node, switched int
	// took is how long the consumer waited for its answer.
	took time.Duration
}

func (r result) String() string {
	took := r.took.Round(time.Millisecond)
	s := fmt.Sprintf("%s: %s after %d attempts, %s", r.id, r.name, r.attempts, took)
	if r.switched > 0 {
		s += fmt.Sprintf(" (switched nodes %d times, answered by node %d)", r.switched, r.node)
	}
	if r.err != nil {
		s += fmt.Sprintf(" (%v)", r.err)
	}
	return s
}

// callUntilFinal calls tool under id and retries with the same call id,
// payload and token on a transport error (the registry is down or its
// connection broke), unavailable and overloaded, until it reads a final
// answer — ok, tool_error, or any other registry error (call_not_admitted,
// outcome_unknown, admission_conflict…) — or ctx ends.
func callUntilFinal(ctx context.Context, c *registry.Client, tool, token, id, payload string, timeout time.Duration) result {
	return callThrough(ctx, []*registry.Client{c}, 0, tool, token, id, payload, timeout)
}

// callThrough is callUntilFinal through the nodes of one registry: it
// sends the call to nodes[first] and, after a transport error, sends the
// retry to the next node (round robin), as a consumer behind a list of
// node addresses fails over. Unavailable and overloaded are retried on the
// same node.
func callThrough(ctx context.Context, nodes []*registry.Client, first int, tool, token, id, payload string, timeout time.Duration) (r result) {
	r = result{id: id, token: token}
	start := time.Now()
	defer func() { r.took = time.Since(start) }()
	wait := 20 * time.Millisecond
	node := first % len(nodes)
	for {
		r.attempts++
		out, err := nodes[node].CallResolvedTool(ctx, &gen.CallResolvedToolPayload{
			Toolset: "echo", Tool: tool, Token: token, CallID: id,
			Payload: json.RawMessage(payload), TimeoutMs: int(timeout / time.Millisecond),
		})
		if err == nil {
			r.name, r.err, r.node = out.Outcome, nil, node
			return r
		}
		r.err = err
		name := registry.ErrorName(err)
		switch name {
		case "", registry.ErrUnavailable, registry.ErrOverloaded:
		default:
			r.name, r.node = name, node
			return r
		}
		if name == "" {
			r.transport++
			if len(nodes) > 1 {
				node = (node + 1) % len(nodes)
				r.switched++
				if r.transport%len(nodes) != 0 && ctx.Err() == nil {
					continue // try the next node at once, wait after a round
				}
			}
		} else {
			r.refused++
		}
		select {
		case <-ctx.Done():
			r.name = ""
			return r
		case <-time.After(wait):
		}
		wait = min(wait*2, 200*time.Millisecond)
	}
}

// fire starts one consumer per call and returns a function that waits for
// their results, in call order.
func fire(ctx context.Context, c *registry.Client, token string, ids []string, tool, payload string, timeout time.Duration) (wait func() []result) {
	results := make([]result, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = callUntilFinal(ctx, c, tool, token, id, payload, timeout)
		}()
	}
	return func() []result {
		wg.Wait()
		return results
	}
}

// load calls tool once per id with the given number of consumers at once,
// each taking the next id when its call ends, and returns a function that
// waits for the results, in id order. Consumer k sends each of its calls
// to nodes[k%spread] first and fails over to the next node on a transport
// error (callThrough): spread 1 sends every call to nodes[0] first.
func load(ctx context.Context, nodes []*registry.Client, spread int, token string, ids []string, consumers int, tool, payload string, timeout time.Duration) (wait func() []result) {
	results := make([]result, len(ids))
	next := make(chan int, len(ids))
	for i := range ids {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for k := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = callThrough(ctx, nodes, k%spread, tool, token, ids[i], payload, timeout)
			}
		}()
	}
	return func() []result {
		wg.Wait()
		return results
	}
}

// callIDs returns n call ids prefix-0 … prefix-(n-1).
func callIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%02d", prefix, i)
	}
	return ids
}

// tally counts results by name, for failure messages.
func tally(results []result) string {
	n := map[string]int{}
	for _, r := range results {
		n[r.name]++
	}
	var parts []string
	for name, c := range n {
		if name == "" {
			name = "no final answer"
		}
		parts = append(parts, fmt.Sprintf("%s=%d", name, c))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// client returns a client of url.
func client(t *testing.T, url string) *registry.Client {
	t.Helper()
	c, err := registry.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
