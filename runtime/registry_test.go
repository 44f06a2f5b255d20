package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// namedSource is the agent's consumption of toolset "remote" of registry
// "corp".
func namedSource(opts ...func(*RegistryUse)) AgentRegistration {
	u := RegistryUse{Registry: "corp", Toolset: "remote"}
	for _, o := range opts {
		o(&u)
	}
	return AgentRegistration{Registries: []RegistryUse{u}}
}

// runErr runs the fixture's agent and returns its error.
func (f *fixture) runErr(text string, opts ...RunOption) (*RunOutput, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f.rt.Run(ctx, "assistant", RunInput{Messages: []model.Message{model.UserMessage(text)}}, opts...)
}

func TestRegistryReadsOncePerWorkingStep(t *testing.T) {
	onEachStore(t, func(t *testing.T, e *regEnv) {
		e.serve(registrytest.Echo("remote"), "r1")
		f := newFixtureWith(t, namedSource(), nil, nil,
			scripted.Call("echo", `{"text":"hi"}`),
			scripted.Call("add", `{"a":1,"b":2}`),
			scripted.Reply("done"))
		e.connect(f)
		out := f.run("go")
		if out.Final == nil || out.Final.Text != "done" {
			t.Fatalf("final = %+v", out.Final)
		}
		if got := e.reads.Load(); got != 3 {
			t.Fatalf("catalog reads = %d, want one per planning step (3)", got)
		}
		reads := eventsOf[RegistryRead](f)
		if len(reads) != 3 || reads[0].NotModified || !reads[1].NotModified || !reads[2].NotModified {
			t.Fatalf("registry reads = %+v, want a full read then two not-modified ones", reads)
		}
		results := toolResults(out.Messages)
		if len(results) != 2 || string(results[0].Content) != `{"text":"hi"}` || string(results[1].Content) != `{"sum":3}` {
			t.Fatalf("results = %+v", results)
		}
		if e.calls.Load() != 2 || len(e.counter.Snapshot()) != 2 {
			t.Fatalf("registry calls = %d, provider runs = %v", e.calls.Load(), e.counter.Snapshot())
		}
	})
}

func TestRegistryFinalizingStepReadsNothing(t *testing.T) {
	e := newRegEnv(t)
	e.serve(registrytest.Echo("remote"), "r1")
	reg := namedSource()
	reg.Policy = RunPolicy{MaxToolCalls: 1}
	f := newFixtureWith(t, reg, nil, nil,
		scripted.Call("echo", `{"text":"hi"}`),
		scripted.Calls(scripted.ToolCallSpec{Name: "echo", Payload: `{"text":"a"}`}),
		scripted.Reply("that is all I may do"))
	e.connect(f)
	out := f.run("go")
	if out.Reason != planner.ReasonToolCap {
		t.Fatalf("reason = %s, want the tool cap's finalizing step", out.Reason)
	}
	if got := e.reads.Load(); got != 2 {
		t.Fatalf("catalog reads = %d, want 2: the finalizing step reads nothing", got)
	}
}

func TestRegistrySourceFailures(t *testing.T) {
	type tc struct {
		name   string
		setup  func(e *regEnv) (AgentRegistration, []fixtureTool)
		steps  []scripted.Step
		before func(e *regEnv, f *fixture) // between connecting and the failing run
		reason string
		want   string
	}
	echo := func(e *regEnv) { e.serve(registrytest.Echo("remote"), "r1") }
	cases := []tc{
		{name: "missing named source", reason: SourceUnknown, want: `"remote"`,
			setup: func(e *regEnv) (AgentRegistration, []fixtureTool) { return namedSource(), nil }},
		{name: "version mismatch", reason: SourceVersionMismatch, want: `version "1.0.0", the agent pins "2.0.0"`,
			setup: func(e *regEnv) (AgentRegistration, []fixtureTool) {
				e.serve(versioned(registrytest.Echo("remote"), "1.0.0"), "r1")
				return namedSource(func(u *RegistryUse) { u.Version = "2.0.0" }), nil
			}},
		{name: "duplicate identities", reason: SourceDuplicate, want: `the tools of toolset "ws" of registry "corp" have the identities of compiled toolset "ws"`,
			setup: func(e *regEnv) (AgentRegistration, []fixtureTool) {
				e.serve(registrytest.Echo("ws"), "r1")
				return AgentRegistration{Registries: []RegistryUse{{Registry: "corp"}}}, []fixtureTool{{spec: newSpec(t, "echo")}}
			}},
		{name: "read error", reason: SourceUnreachable, want: "",
			setup:  func(e *regEnv) (AgentRegistration, []fixtureTool) { echo(e); return namedSource(), nil },
			before: func(e *regEnv, f *fixture) { e.reg.Close() }},
		{name: "removed during resolution", reason: SourceRemoved, want: `"remote" was removed after catalog revision`,
			setup: func(e *regEnv) (AgentRegistration, []fixtureTool) { echo(e); return namedSource(), nil },
			steps: []scripted.Step{scripted.Reply("first")},
			before: func(e *regEnv, f *fixture) {
				// The first run resolved the toolset; it is removed before
				// the next run's step reads again.
				f.run("first")
				e.unregister("remote")
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newRegEnv(t)
			reg, ts := c.setup(e)
			f := newFixtureWith(t, reg, nil, ts, append(c.steps, scripted.Reply("never"))...)
			e.connect(f)
			if c.before != nil {
				c.before(e, f)
			}
			_, err := f.runErr("go")
			// The step's error crosses the engine as text: the reason and
			// the source are in it.
			if err == nil || !strings.Contains(err.Error(), ": "+c.reason+": ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want the %s failure containing %q", err, c.reason, c.want)
			}
			if f.model.Calls() != len(c.steps) {
				t.Fatalf("model requests = %d: a failed resolution must not reach the model", f.model.Calls())
			}
		})
	}
}

func TestRegistryNotRegisteredFailsAtStart(t *testing.T) {
	f := newFixtureWith(t, namedSource(), nil, nil, scripted.Reply("never"))
	_, err := f.runErr("go")
	var se *RegistrySourceError
	if !errors.As(err, &se) || se.Reason != SourceNotRegistered || !strings.Contains(err.Error(), `rt.RegisterRegistry("corp", client)`) {
		t.Fatalf("error = %v", err)
	}
	if f.model.Calls() != 0 {
		t.Fatal("the model was asked")
	}
}

func TestRegisterRegistryRefusesDuplicatesAndNil(t *testing.T) {
	e := newRegEnv(t)
	rt, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterRegistry("corp", e.consumer()); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterRegistry("corp", e.consumer()); !errors.Is(err, ErrRegistryRegistered) {
		t.Fatalf("second registration: %v", err)
	}
	if err := rt.RegisterRegistry("other", nil); err == nil {
		t.Fatal("nil client accepted")
	}
	err = rt.RegisterAgent(AgentRegistration{Name: "a", Planner: planner.NewStandard(), Registries: []RegistryUse{{Registry: "corp"}, {Registry: "corp", Toolset: "x"}}})
	if err == nil || !strings.Contains(err.Error(), "overlaps") {
		t.Fatalf("overlapping sources: %v", err)
	}
}

func TestRegistryEmptyWholeRegistryIsValid(t *testing.T) {
	e := newRegEnv(t)
	f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp", DeferAll: true}}, Search: model.SearchSettings{Mode: model.SearchPortable}}, nil, nil, scripted.Reply("nothing to use"))
	e.connect(f)
	if out := f.run("go"); out.Final == nil || out.Final.Text != "nothing to use" {
		t.Fatalf("final = %+v", out.Final)
	}
}

// toolIdents returns the idents a request advertises, sorted.
func toolIdents(req *model.Request) []string {
	var ids []string
	for _, d := range req.Tools {
		if d.Ident != "" {
			ids = append(ids, string(d.Ident))
		}
	}
	slices.Sort(ids)
	return ids
}

func TestRegistryProviderAddedBetweenSteps(t *testing.T) {
	e := newRegEnv(t)
	e.serve(registrytest.Echo("remote"), "r1")
	var seen [][]string
	record := func(next scripted.Step) scripted.Step {
		return scripted.Choose(func(req *model.Request) scripted.Step {
			seen = append(seen, toolIdents(req))
			return next
		})
	}
	late := registrytest.Echo("late")
	f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp"}}}, nil,
		[]fixtureTool{{spec: newSpec(t, "publish"), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
			e.serve(late, "r1")
			return &planner.ToolResult{Result: json.RawMessage(`{"published":true}`)}, nil
		}}},
		record(scripted.Call("publish", `{}`)),
		record(scripted.Calls(scripted.ToolCallSpec{Name: "late_echo", Payload: `{"text":"new"}`})),
		scripted.Reply("done"))
	e.connect(f)
	out := f.run("go")
	if slices.Contains(seen[0], "late.echo") || !slices.Contains(seen[1], "late.echo") {
		t.Fatalf("advertised tools per step = %v: the provider added after step 1 must appear at step 2 only", seen)
	}
	results := toolResults(out.Messages)
	if len(results) != 2 || string(results[1].Content) != `{"text":"new"}` {
		t.Fatalf("results = %+v", results)
	}
}

func TestRegistryReplacedBetweenAcceptanceAndExecution(t *testing.T) {
	onEachStore(t, func(t *testing.T, e *regEnv) {
		stopOld := e.serve(registrytest.Echo("remote"), "r1")
		replaced := registrytest.Echo("remote")
		replaced.Tools[0].Description = "Return the text it is given, verbatim."
		var reply string
		f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp", Toolset: "remote"}}}, nil,
			[]fixtureTool{{spec: newSpec(t, "deploy"), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
				// The batch's second call was accepted with revision r1's
				// contract; r2 replaces r1 before it runs.
				stopNew := registrytest.Serve(t, e.reg.Client(t, ""), registryRegistration(replaced, "r2"), e.counter)
				_ = stopNew
				if err := stopOld(); err != nil {
					t.Errorf("old provider: %v", err)
				}
				waitActive(t, e, "remote", "r2")
				return &planner.ToolResult{Result: json.RawMessage(`{"deployed":true}`)}, nil
			}}},
			scripted.Calls(scripted.ToolCallSpec{Name: "deploy", Payload: `{}`}, scripted.ToolCallSpec{Name: "echo", Payload: `{"text":"old"}`}),
			scripted.Choose(func(req *model.Request) scripted.Step {
				reply = lastToolResult(req)
				return scripted.Call("echo", `{"text":"again"}`)
			}),
			scripted.Reply("done"))
		e.connect(f)
		out := f.run("go")
		if !strings.Contains(reply, `"error":"admission_conflict"`) || !strings.Contains(reply, "Call echo again") {
			t.Fatalf("the model read %s, want admission_conflict with its recovery hint", reply)
		}
		runs := e.counter.Snapshot()
		if len(runs) != 1 {
			t.Fatalf("provider runs = %v: the call accepted under r1 must not run under r2", runs)
		}
		results := toolResults(out.Messages)
		if got := string(results[len(results)-1].Content); got != `{"text":"again"}` {
			t.Fatalf("the next step's call ran with the new contract? result %s", got)
		}
	})
}

func TestRegistrySuspendedCallKeepsSavedContract(t *testing.T) {
	onEachStore(t, func(t *testing.T, e *regEnv) {
		decl := registrytest.Echo("remote")
		decl.Tools[0].Confirmation = &tools.ConfirmationSpec{Title: "Echo it?", PromptTemplate: `Echo {{ .text }}?`}
		e.serve(decl, "r1")
		e.serve(registrytest.Echo("other"), "r1")
		f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp", Toolset: "remote"}}}, nil, nil,
			scripted.Call("echo", `{"text":"hello"}`),
			scripted.Reply("done"))
		e.connect(f)
		out := f.run("go")
		if out.Suspension == nil || len(out.Suspension.Pending) != 1 {
			t.Fatalf("status %s, want a suspension for confirmation", out.Status)
		}
		item := out.Suspension.Pending[0]
		if item.Title != "Echo it?" || item.Prompt != "Echo hello?" {
			t.Fatalf("pending item = %+v", item)
		}
		// The catalog changes while the run waits: another toolset leaves, and
		// the confirmed tool's current listing would ask nothing any more.
		e.unregister("other")
		readsBefore := e.reads.Load()
		done := f.cont(out.RunID, item.Approve())
		if e.reads.Load() != readsBefore+1 {
			t.Fatalf("reads during the continuation = %d, want only the next step's", e.reads.Load()-readsBefore)
		}
		results := toolResults(done.Messages)
		if len(results) == 0 || string(results[0].Content) != `{"text":"hello"}` {
			t.Fatalf("results = %+v", results)
		}
		if len(e.counter.Snapshot()) != 1 {
			t.Fatalf("provider runs = %v", e.counter.Snapshot())
		}
	})
}

func TestRegistrySuspendedCallReplacedWhileWaiting(t *testing.T) {
	e := newRegEnv(t)
	decl := registrytest.Echo("remote")
	decl.Tools[0].Confirmation = &tools.ConfirmationSpec{Title: "Echo it?"}
	stop := e.serve(decl, "r1")
	var reply string
	f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp", Toolset: "remote"}}}, nil, nil,
		scripted.Call("echo", `{"text":"hello"}`),
		scripted.Choose(func(req *model.Request) scripted.Step {
			reply = lastToolResult(req)
			return scripted.Reply("done")
		}))
	e.connect(f)
	out := f.run("go")
	// While the run waits, the toolset is replaced by a revision without
	// the confirmation.
	registrytest.Serve(t, e.reg.Client(t, ""), registryRegistration(registrytest.Echo("remote"), "r2"), e.counter)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	waitActive(t, e, "remote", "r2")
	f.cont(out.RunID, out.Suspension.Pending[0].Approve())
	if !strings.Contains(reply, `"error":"admission_conflict"`) {
		t.Fatalf("the model read %s, want admission_conflict: the saved token names r1", reply)
	}
	if len(e.counter.Snapshot()) != 0 {
		t.Fatalf("provider runs = %v", e.counter.Snapshot())
	}
}

func TestRegistryRemovedToolStaysInHistory(t *testing.T) {
	e := newRegEnv(t)
	e.serve(registrytest.Echo("remote"), "r1")
	e.serve(registrytest.Echo("gone"), "r1")
	var reply string
	f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp"}}}, nil,
		[]fixtureTool{{spec: newSpec(t, "remove"), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
			e.unregister("gone")
			return &planner.ToolResult{Result: json.RawMessage(`{}`)}, nil
		}}},
		scripted.Calls(scripted.ToolCallSpec{Name: "gone_echo", Payload: `{"text":"before"}`}),
		scripted.Call("remove", `{}`),
		scripted.Calls(scripted.ToolCallSpec{Name: "gone_echo", Payload: `{"text":"after"}`}),
		scripted.Choose(func(req *model.Request) scripted.Step {
			reply = lastToolResult(req)
			return scripted.Reply("done")
		}))
	e.connect(f)
	out := f.run("go")
	results := toolResults(out.Messages)
	if string(results[0].Content) != `{"text":"before"}` {
		t.Fatalf("the old call's result changed: %s", results[0].Content)
	}
	if !strings.Contains(reply, `"error":"tool_unavailable"`) {
		t.Fatalf("the new call read %s, want it refused as unknown", reply)
	}
	if len(e.counter.Snapshot()) != 1 {
		t.Fatalf("provider runs = %v", e.counter.Snapshot())
	}
}

// lastToolResult returns the content of the request's last tool result.
func lastToolResult(req *model.Request) string {
	results := toolResults(req.Messages)
	if len(results) == 0 {
		return ""
	}
	return string(results[len(results)-1].Content)
}

// waitActive waits until the toolset's active registration is revision.
func waitActive(t *testing.T, e *regEnv, toolset, revision string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := registrytest.WaitProviders(t, e.admin, toolset, 1)
		if r.Revision == revision {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("toolset %q never became active at revision %q", toolset, revision)
}

// tenantTools includes, for each run, the toolset named by its "tenant"
// label, and lets saved calls keep using only the tenant's own toolset.
type tenantTools struct{}

func (tenantTools) Resolve(_ context.Context, c *RegistryCatalog) error {
	tenant := c.RunLabels()["tenant"]
	if tenant == "" {
		return errors.New("no tenant label")
	}
	c.IncludeToolset("corp", tenant)
	return nil
}

func (tenantTools) Allows(_ context.Context, c *RegistryCatalog, src RegistrySource) bool {
	return c.RunLabels()["tenant"] == src.Toolset && c.RunLabels()["revoked"] == ""
}

func TestRegistryToolsConcurrentSessions(t *testing.T) {
	e := newRegEnv(t)
	tenants := []string{"alpha", "beta", "gamma"}
	for _, name := range tenants {
		e.serve(registrytest.Echo(name), "r1")
	}
	const perTenant = 4
	var steps []scripted.Step
	for range len(tenants) * perTenant {
		steps = append(steps, scripted.Func(func(req *model.Request) (*model.Response, error) {
			return &model.Response{Messages: []model.Message{model.AssistantMessage(strings.Join(toolIdents(req), ","))}}, nil
		}))
	}
	f := newFixtureWith(t, AgentRegistration{}, []Option{WithRegistryTools(tenantTools{})}, nil, steps...)
	e.connect(f)
	type result struct {
		tenant, text string
		err          error
	}
	results := make(chan result, len(tenants)*perTenant)
	for _, tenant := range tenants {
		for i := range perTenant {
			go func() {
				out, err := f.runErr("list", WithLabels(map[string]string{"tenant": tenant}), WithRunID(fmt.Sprintf("%s-%d", tenant, i)))
				r := result{tenant: tenant, err: err}
				if err == nil && out.Final != nil {
					r.text = out.Final.Text
				}
				results <- r
			}()
		}
	}
	for range len(tenants) * perTenant {
		r := <-results
		want := fmt.Sprintf("%[1]s.add,%[1]s.echo,%[1]s.slow", r.tenant)
		if r.err != nil || r.text != want {
			t.Errorf("tenant %s saw %q (err %v), want exactly its own toolset %q", r.tenant, r.text, r.err, want)
		}
	}
}

func TestRegistryToolsAllowsDecidesSavedCalls(t *testing.T) {
	e := newRegEnv(t)
	decl := registrytest.Echo("alpha")
	decl.Tools[0].Confirmation = &tools.ConfirmationSpec{Title: "Echo it?"}
	e.serve(decl, "r1")
	var reply string
	f := newFixtureWith(t, AgentRegistration{}, []Option{WithRegistryTools(tenantTools{})}, nil,
		scripted.Call("echo", `{"text":"hello"}`),
		scripted.Choose(func(req *model.Request) scripted.Step {
			reply = lastToolResult(req)
			return scripted.Reply("done")
		}))
	e.connect(f)
	out := f.run("go", WithLabels(map[string]string{"tenant": "alpha", "revoked": "yes"}))
	if out.Suspension == nil {
		t.Fatalf("status %s, want a confirmation", out.Status)
	}
	f.cont(out.RunID, out.Suspension.Pending[0].Approve())
	if !strings.Contains(reply, `"error":"source_not_allowed"`) || len(e.counter.Snapshot()) != 0 {
		t.Fatalf("the model read %s, provider runs %v: Allows refused the saved call", reply, e.counter.Snapshot())
	}
}

func TestRegistryCacheTTLServesOnlyWhileUnreachable(t *testing.T) {
	e := newRegEnv(t)
	e.serve(registrytest.Echo("remote"), "r1")
	f := newFixtureWith(t, namedSource(), nil, nil, scripted.Reply("one"), scripted.Reply("two"))
	if err := f.rt.RegisterRegistry("corp", e.consumer(registry.WithCacheTTL(time.Hour))); err != nil {
		t.Fatal(err)
	}
	f.run("first")
	e.reg.Close()
	out := f.run("second")
	if out.Final == nil || out.Final.Text != "two" {
		t.Fatalf("final = %+v", out.Final)
	}
	reads := eventsOf[RegistryRead](f)
	last := reads[len(reads)-1]
	if !last.Stale || last.Cause == "" {
		t.Fatalf("last read = %+v, want it served from the cache and said so", last)
	}
}

// registryRegistration is a provider registration of decl at revision.
func registryRegistration(decl contract.ToolsetDeclaration, revision string) registry.Registration {
	return registry.Registration{Toolset: decl, Revision: revision}
}

func TestRegistrySyncIntervalRefreshesInTheBackground(t *testing.T) {
	e := newRegEnv(t)
	e.serve(registrytest.Echo("remote"), "r1")
	f := newFixtureWith(t, namedSource(), nil, nil, scripted.Reply("one"))
	if err := f.rt.RegisterRegistry("corp", e.consumer(registry.WithSyncInterval(20*time.Millisecond))); err != nil {
		t.Fatal(err)
	}
	f.run("first")
	after := e.reads.Load()
	deadline := time.Now().Add(5 * time.Second)
	for e.reads.Load() < after+3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if e.reads.Load() < after+3 {
		t.Fatalf("reads after the run = %d, want background refreshes", e.reads.Load()-after)
	}
	if err := f.rt.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond) // a refresh in flight when Close ran may still land
	stopped := e.reads.Load()
	time.Sleep(100 * time.Millisecond)
	if e.reads.Load() != stopped {
		t.Fatalf("reads went on after Close: %d more", e.reads.Load()-stopped)
	}
}

func TestRegistryFederationFiltersWholeRegistry(t *testing.T) {
	e := newRegEnv(t)
	for _, name := range []string{"data-sales", "data-experimental", "web"} {
		e.serve(registrytest.Echo(name), "r1")
	}
	var seen []string
	f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp"}}}, nil, nil,
		scripted.Choose(func(req *model.Request) scripted.Step {
			seen = toolIdents(req)
			return scripted.Reply("done")
		}))
	e.connect(f, registry.WithFederation([]string{"data-*"}, []string{"*-experimental"}))
	f.run("go")
	if want := "data-sales.add,data-sales.echo,data-sales.slow"; strings.Join(seen, ",") != want {
		t.Fatalf("imported tools = %v, want %s", seen, want)
	}
}

// pagesToolset is a bounded listing whose next page comes from its
// ContinueWith partner.
func pagesToolset() contract.ToolsetDeclaration {
	items := json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"integer"}}},"required":["items"]}`)
	return contract.ToolsetDeclaration{Name: "pages", Tools: []contract.ToolDeclaration{
		{Name: "list", Title: "List", Description: "List the items, a page at a time.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), OutputSchema: items,
			Bounds: &tools.BoundsSpec{ContinueWith: "more"}},
		{Name: "more", Title: "More", Description: "The next page of the listing.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"cursor":{"type":"string"}}}`), OutputSchema: items,
			Bounds: &tools.BoundsSpec{}},
	}}
}

// pagesExecutor serves pagesToolset: two pages.
var pagesExecutor = registrytest.Returning(func(_ context.Context, call *toolcall.Call) (json.RawMessage, error) {
	if call.Ident.Tool() == "list" {
		return json.RawMessage(`{"items":[1,2],"returned":2,"truncated":true,"next_cursor":"page-2"}`), nil
	}
	var p struct{ Cursor string }
	if err := json.Unmarshal(call.Payload, &p); err != nil || p.Cursor != "page-2" {
		return nil, fmt.Errorf("unexpected cursor %q", p.Cursor)
	}
	return json.RawMessage(`{"items":[3],"returned":1,"truncated":false}`), nil
})

func TestRegistryBoundedListingContinuesWithItsSavedPartner(t *testing.T) {
	e := newRegEnv(t)
	registrytest.Serve(t, e.reg.Client(t, ""), registry.Registration{Toolset: pagesToolset(), Revision: "r1"}, pagesExecutor)
	registrytest.WaitProviders(t, e.admin, "pages", 1)
	f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp", Toolset: "pages"}}}, nil, nil,
		scripted.Call("list", `{}`),
		scripted.Call("more", `{}`),
		scripted.Reply("done"))
	e.connect(f)
	out := f.run("go")
	results := toolResults(out.Messages)
	if len(results) != 2 {
		t.Fatalf("results = %+v", results)
	}
	if got := string(results[0].Content); !strings.Contains(got, `"items":[1,2]`) || !strings.Contains(got, `"truncated":true`) || strings.Contains(got, "page-2") {
		t.Fatalf("first page = %s: bounds projected, the cursor kept in the runtime", got)
	}
	if got := string(results[1].Content); !strings.Contains(got, `"items":[3]`) || results[1].IsError {
		t.Fatalf("second page = %s", got)
	}
}

func TestRegistryContinuationKeepsTheListingsRegistration(t *testing.T) {
	e := newRegEnv(t)
	stopOld := registrytest.Serve(t, e.reg.Client(t, ""), registry.Registration{Toolset: pagesToolset(), Revision: "r1"}, pagesExecutor)
	registrytest.WaitProviders(t, e.admin, "pages", 1)
	var reply string
	f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp", Toolset: "pages"}}}, nil,
		[]fixtureTool{{spec: newSpec(t, "swap"), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
			registrytest.Serve(t, e.reg.Client(t, ""), registry.Registration{Toolset: pagesToolset(), Revision: "r2"}, pagesExecutor)
			if err := stopOld(); err != nil {
				t.Errorf("old provider: %v", err)
			}
			waitActive(t, e, "pages", "r2")
			return &planner.ToolResult{Result: json.RawMessage(`{}`)}, nil
		}}},
		scripted.Calls(scripted.ToolCallSpec{Name: "list", Payload: `{}`}, scripted.ToolCallSpec{Name: "swap", Payload: `{}`}),
		scripted.Call("more", `{}`),
		scripted.Choose(func(req *model.Request) scripted.Step {
			reply = lastToolResult(req)
			return scripted.Reply("done")
		}))
	e.connect(f)
	f.run("go")
	if !strings.Contains(reply, `"error":"admission_conflict"`) {
		t.Fatalf("the continuation read %s: it must run with the listing's saved registration (r1), now replaced", reply)
	}
}

func TestRegistryCallWithoutProviderIsNotAdmitted(t *testing.T) {
	e := newRegEnv(t)
	stop := e.serve(registrytest.Echo("remote"), "r1")
	var reply string
	reg := namedSource()
	reg.Policy = RunPolicy{Timing: &Timing{Tools: 500 * time.Millisecond}}
	f := newFixtureWith(t, reg, nil,
		[]fixtureTool{{spec: newSpec(t, "outage"), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
			// The provider goes away; its toolset stays listed.
			if err := stop(); err != nil {
				t.Errorf("provider: %v", err)
			}
			return &planner.ToolResult{Result: json.RawMessage(`{}`)}, nil
		}}},
		scripted.Calls(scripted.ToolCallSpec{Name: "outage", Payload: `{}`}, scripted.ToolCallSpec{Name: "echo", Payload: `{"text":"anyone?"}`}),
		scripted.Choose(func(req *model.Request) scripted.Step {
			reply = lastToolResult(req)
			return scripted.Reply("done")
		}))
	e.connect(f)
	f.run("go")
	if !strings.Contains(reply, `"error":"call_not_admitted"`) || !strings.Contains(reply, "Nothing ran") {
		t.Fatalf("the model read %s, want call_not_admitted with its recovery hint", reply)
	}
}

func TestRegistryToolsAreFilteredByRunPolicy(t *testing.T) {
	e := newRegEnv(t)
	decl := registrytest.Echo("remote")
	decl.Tools[2].Tags = []string{"slow"}
	e.serve(decl, "r1")
	var seen []string
	reg := namedSource()
	reg.Policy = RunPolicy{Tools: catalog.Filter{DenyTags: []string{"slow"}}}
	f := newFixtureWith(t, reg, nil, nil, scripted.Choose(func(req *model.Request) scripted.Step {
		seen = toolIdents(req)
		return scripted.Reply("done")
	}))
	e.connect(f)
	f.run("go")
	if strings.Join(seen, ",") != "remote.add,remote.echo" {
		t.Fatalf("advertised = %v: the run policy drops the provider's slow-tagged tool", seen)
	}
}

// A run id outside the registry's call-id alphabet (a '/', as a tenant
// path would have) still reaches the registry: its calls go under a hashed
// id, run once, and the model reads the result.
func TestRegistryCallsOfARunIDOutsideTheAlphabet(t *testing.T) {
	e := newRegEnv(t)
	e.serve(registrytest.Echo("remote"), "r1")
	f := newFixtureWith(t, namedSource(), nil, nil,
		scripted.Call("echo", `{"text":"hi"}`),
		scripted.Reply("done"))
	e.connect(f)
	out := f.run("go", WithRunID("tenant/42 run"))
	results := toolResults(out.Messages)
	if len(results) != 1 || string(results[0].Content) != `{"text":"hi"}` {
		t.Fatalf("results = %+v", results)
	}
	runs := e.counter.Snapshot()
	if len(runs) != 1 {
		t.Fatalf("provider runs = %v", runs)
	}
	for id, n := range runs {
		if n != 1 || !strings.HasPrefix(id, "qh1-") || !registry.ValidCallID(id) {
			t.Fatalf("call %q ran %d times, want once under a hashed id", id, n)
		}
	}
}
