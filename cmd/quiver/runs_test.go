package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/redisstore"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// recordRuns runs, on store, run-1 (one lookup call, then an answer) and
// run-2 (suspended at its confirmation), as an application would.
func recordRuns(t *testing.T, store runtime.Store) {
	t.Helper()
	ctx := context.Background()
	obj := json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}}}`)
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "orders", Tools: []contract.ToolDeclaration{
		{Name: "lookup", Title: "Look up", Description: "Look an order up.", InputSchema: obj},
		{Name: "cancelOrder", Title: "Cancel order", Description: "Cancel an order.", InputSchema: obj,
			Confirmation: &tools.ConfirmationSpec{PromptTemplate: "Cancel order {{ .order_id }}?"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := runtime.New(runtime.WithStore(store), runtime.WithModel(model.ModelClassDefault, scripted.New(
		scripted.Call("lookup", `{"order_id":"A-1"}`), scripted.Reply("A-1 is open."),
		scripted.Call("cancelOrder", `{"order_id":"A-1"}`),
	)))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	exec := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		return &toolcall.Result{Result: json.RawMessage(`{"status":"open"}`)}, nil
	})
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: exec}); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "desk", Planner: planner.NewStandard(), Uses: []runtime.ToolsetUse{{Toolset: "orders"}}}); err != nil {
		t.Fatal(err)
	}
	in := func(text string) runtime.RunInput {
		return runtime.RunInput{SessionID: "s-1", Messages: []model.Message{model.UserMessage(text)}}
	}
	if out, err := rt.Run(ctx, "desk", in("Is A-1 open?"), runtime.WithRunID("run-1")); err != nil || out.Status != runtime.StatusCompleted {
		t.Fatalf("run-1: %+v, %v", out, err)
	}
	if out, err := rt.Run(ctx, "desk", in("Cancel A-1."), runtime.WithRunID("run-2")); err != nil || out.Status != runtime.StatusSuspended {
		t.Fatalf("run-2: %+v, %v", out, err)
	}
}

// recordRunsIn records the runs in dir's runs.db.
func recordRunsIn(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := boltstore.Open(filepath.Join(dir, boltstore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recordRuns(t, s)
}

func TestRunsOverADataFolder(t *testing.T) {
	dir := t.TempDir()
	recordRunsIn(t, dir)

	ls := quiver(t, "runs", "ls", "--data", dir).mustSucceed(t).stdout
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^RUN\s+STATUS\s+AGENT\s+SESSION\s+EVENTS\s+UPDATED$`),
		regexp.MustCompile(`(?m)^run-2\s+suspended\s+desk\s+s-1\s+\d+\s`),
		regexp.MustCompile(`(?m)^run-1\s+completed\s+desk\s+s-1\s+\d+\s`),
	} {
		if !want.MatchString(ls) {
			t.Errorf("quiver runs ls: no line matching %s in\n%s", want, ls)
		}
	}
	if strings.Index(ls, "run-2") > strings.Index(ls, "run-1") {
		t.Errorf("quiver runs ls: not the most recent first:\n%s", ls)
	}
	if got := quiver(t, "runs", "ls", "--data", dir, "--status", "completed").mustSucceed(t).stdout; strings.Contains(got, "run-2") || !strings.Contains(got, "run-1") {
		t.Errorf("--status completed:\n%s", got)
	}

	show := quiver(t, "runs", "show", "run-1", "--data", dir).mustSucceed(t).stdout
	order := []string{"Status:", "completed", "run_started", "planned", "calls lookup", "tool_call_scheduled", "orders.lookup call", "tool_result", "run_completed", "final_response"}
	at := 0
	for _, w := range order {
		i := strings.Index(show[at:], w)
		if i < 0 {
			t.Fatalf("quiver runs show run-1: %q missing or out of order in\n%s", w, show)
		}
		at += i
	}
	waiting := quiver(t, "runs", "show", "run-2", "--data", dir).mustSucceed(t).stdout
	if !strings.Contains(waiting, "Waiting for (1):") || !strings.Contains(waiting, "confirmation of orders.cancelOrder") || !strings.Contains(waiting, "Cancel order A-1?") {
		t.Errorf("quiver runs show of a suspended run does not say what it waits for:\n%s", waiting)
	}

	var shown runShowJSON
	if err := json.Unmarshal([]byte(quiver(t, "runs", "show", "run-2", "--data", dir, "--json").mustSucceed(t).stdout), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Run.Status != runtime.StatusSuspended || len(shown.Pending) != 1 || int64(len(shown.Events)) != shown.Run.Events {
		t.Errorf("show --json = %+v", shown)
	}

	// tail of an ended run prints its events and returns; --after follows
	// on from a cursor; --json prints the records as the log keeps them.
	tail := quiver(t, "runs", "tail", "run-1", "--data", dir).mustSucceed(t).stdout
	lines := strings.Split(strings.TrimSpace(tail), "\n")
	var one runShowJSON
	if err := json.Unmarshal([]byte(quiver(t, "runs", "show", "run-1", "--data", dir, "--json").mustSucceed(t).stdout), &one); err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(one.Events) || !strings.Contains(lines[len(lines)-1], "run_completed") {
		t.Errorf("tail run-1 printed %d lines for %d events:\n%s", len(lines), len(one.Events), tail)
	}
	rest := strings.Split(strings.TrimSpace(quiver(t, "runs", "tail", "run-1", "--data", dir, "--after", "3", "--json").mustSucceed(t).stdout), "\n")
	if len(rest) != len(lines)-3 {
		t.Fatalf("tail --after 3 printed %d records; tail printed %d events", len(rest), len(lines))
	}
	for i, line := range rest {
		rec, err := runtime.UnmarshalEvent([]byte(line))
		if err != nil || rec.Seq != int64(i+4) {
			t.Fatalf("tail --json line %d = %q: %v", i, line, err)
		}
	}
}

func TestRunsRefusals(t *testing.T) {
	dir := t.TempDir()
	missing := quiver(t, "runs", "ls", "--data", dir)
	if missing.code != exitError || !strings.Contains(missing.stderr, filepath.Join(dir, boltstore.FileName)) || !strings.Contains(missing.stderr, "no run log") {
		t.Errorf("ls of a folder without runs.db: exit %d, stderr %s", missing.code, missing.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, boltstore.FileName)); !os.IsNotExist(err) {
		t.Error("reading a run log created runs.db")
	}
	recordRunsIn(t, dir)
	unknown := quiver(t, "runs", "show", "nope", "--data", dir)
	if unknown.code != exitError || !strings.Contains(unknown.stderr, `no run "nope"`) || !strings.Contains(unknown.stderr, "quiver runs ls") {
		t.Errorf("show of an unknown run: exit %d, stderr %s", unknown.code, unknown.stderr)
	}
	for _, args := range [][]string{
		{"runs", "show"},
		{"runs", "show", "a", "b"},
		{"runs", "ls", "--status", "sleeping"},
		{"runs", "ls", "--data", dir, "--redis", "redis://127.0.0.1:1/0"},
		{"runs", "ls", "--prefix", "p:"},
		{"runs", "tail", "run-1", "--after", "-1"},
	} {
		if r := quiver(t, args...); r.code != exitUsage {
			t.Errorf("quiver %s: exit %d, want %d (usage); stderr %s", strings.Join(args, " "), r.code, exitUsage, r.stderr)
		}
	}
	// The application holds runs.db: the message says what to do.
	s, err := boltstore.Open(filepath.Join(dir, boltstore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	held := quiver(t, "runs", "ls", "--data", dir)
	if held.code != exitError || !strings.Contains(held.stderr, "--redis") {
		t.Errorf("ls of a held runs.db: exit %d, stderr %s", held.code, held.stderr)
	}
}

func TestRunsLsSaysAnOwnerIsGone(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	prefix := redistest.NewPrefix()
	s, err := redisstore.Open(context.Background(), srv.URL(), redisstore.WithPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A run started by an owner whose lease lapsed a minute ago.
	rec := runtime.EventRecord{Version: runtime.EventFormat, Type: runtime.EventRunStarted, Data: json.RawMessage(`{}`),
		EventHeader: runtime.EventHeader{RunID: "run-9", Agent: "desk", Seq: 1, Time: time.Now()}}
	if err := s.RunLog().Append(context.Background(), "gone-host/1/x", []runtime.EventRecord{rec}); err != nil {
		t.Fatal(err)
	}
	if err := s.RunLog().Renew(context.Background(), "gone-host/1/x", time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	ls := quiver(t, "runs", "ls", "--redis", srv.URL(), "--prefix", prefix).mustSucceed(t).stdout
	if !regexp.MustCompile(`(?m)^run-9\s+running \(owner gone\)\s+desk`).MatchString(ls) {
		t.Errorf("quiver runs ls:\n%s", ls)
	}
}

// TestRunsCommandsAsTheDocsWriteThem runs every quiver runs line of
// docs/runtime.md, as written, in a folder whose ./data holds run-1, and
// with Redis on 127.0.0.1:6379 holding run-1 too (those lines are skipped
// when the port is taken).
func TestRunsCommandsAsTheDocsWriteThem(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "runtime.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.Lines(string(doc)) {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "quiver runs ") {
			lines = append(lines, line)
		}
	}
	if len(lines) < 4 {
		t.Fatalf("docs/runtime.md writes %d quiver runs lines; it shows ls, show and tail", len(lines))
	}
	// The README writes its in prose, with placeholders: RUN and DIR
	// stand for run-1 and the data folder.
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	inREADME := regexp.MustCompile("`(?:go run ./cmd/)?(quiver runs [^`]+)`").FindAllStringSubmatch(strings.Join(strings.Fields(string(readme)), " "), -1)
	if len(inREADME) == 0 {
		t.Fatal("README.md writes no quiver runs command; it shows one on the runtour's run")
	}
	for _, m := range inREADME {
		lines = append(lines, strings.NewReplacer(" RUN", " run-1", " DIR", " data").Replace(m[1]))
	}
	t.Chdir(t.TempDir())
	recordRunsIn(t, "data")
	redisSkip := startExampleRedis(t)
	if redisSkip == "" {
		s, err := redisstore.Open(context.Background(), "redis://"+exampleRedisAddr+"/0")
		if err != nil {
			t.Fatal(err)
		}
		recordRuns(t, s)
		s.Close()
	}
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			if strings.Contains(line, "--redis") && redisSkip != "" {
				t.Skip(redisSkip)
			}
			words := shellWords(t, line)
			r := quiver(t, words[1:]...)
			if r.code != exitOK || r.stderr != "" || r.stdout == "" {
				t.Errorf("exit %d, stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
			}
		})
	}
}
