package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// hintQueryPayload is the typed payload generated code would decode into:
// Go field names, JSON keys in tags.
type hintQueryPayload struct {
	Query string   `json:"query"`
	Tags  []string `json:"tags"`
}

// hintQueryResult is the typed result of the search tools.
type hintQueryResult struct {
	Count   int      `json:"count"`
	Results []string `json:"results"`
}

const hintQuerySchema = `{"type":"object","properties":{"query":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}}}`

// hintCallTemplate sets the call hint template.
func hintCallTemplate(tmpl string) specOption {
	return func(s *tools.ToolSpec) { s.CallHintTemplate = tmpl }
}

// hintResultTemplate sets the result hint template.
func hintResultTemplate(tmpl string) specOption {
	return func(s *tools.ToolSpec) { s.ResultHintTemplate = tmpl }
}

// hintInToolset moves a fixture spec to another toolset.
func hintInToolset(toolset string) specOption {
	return func(s *tools.ToolSpec) { s.Name = tools.JoinIdent(toolset, s.Name.Tool()) }
}

// hintTypedFixture is a fixture whose agent uses the toolset "typed",
// registered with the given decoders (as generated code registers it) and
// answering every call with the handlers' results.
func hintTypedFixture(t *testing.T, specs []tools.ToolSpec, handlers map[string]handler, decodePayload, decodeResult func(tools.Ident, json.RawMessage) (any, error), opts []Option, steps ...scripted.Step) *fixture {
	t.Helper()
	reg := ToolsetRegistration{
		Name:  "typed",
		Specs: specs,
		Executor: ToolExecutorFunc(func(ctx context.Context, call *ToolCall) (*planner.ToolResult, error) {
			if h := handlers[call.Ident.Tool()]; h != nil {
				return h(ctx, call)
			}
			return &planner.ToolResult{Result: json.RawMessage(`{"count":0,"results":[]}`)}, nil
		}),
		DecodePayload: decodePayload,
		DecodeResult:  decodeResult,
	}
	register := func(rt *Runtime) error { return rt.RegisterToolset(reg) }
	agent := AgentRegistration{Uses: []ToolsetUse{{Toolset: "typed"}}}
	return newFixtureWith(t, agent, append([]Option{register}, opts...), nil, steps...)
}

// hintDecodePayload decodes payloads into hintQueryPayload.
func hintDecodePayload(_ tools.Ident, raw json.RawMessage) (any, error) {
	var p hintQueryPayload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// hintDecodeResult decodes results into hintQueryResult.
func hintDecodeResult(_ tools.Ident, raw json.RawMessage) (any, error) {
	var r hintQueryResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return r, nil
}

// hintCallHints returns the display hints of the scheduled calls by tool.
func hintCallHints(f *fixture) map[tools.Ident]string {
	out := map[tools.Ident]string{}
	for _, e := range eventsOf[ToolCallScheduled](f) {
		out[e.Tool] = e.DisplayHint
	}
	return out
}

// hintResultHints returns the display hints of the results by tool.
func hintResultHints(f *fixture) map[tools.Ident]string {
	out := map[tools.Ident]string{}
	for _, e := range eventsOf[ToolResultReceived](f) {
		out[e.Tool] = e.DisplayHint
	}
	return out
}

// hintCheck compares hints by tool.
func hintCheck(t *testing.T, what string, got map[tools.Ident]string, want map[tools.Ident]string) {
	t.Helper()
	for id, w := range want {
		h, ok := got[id]
		if !ok {
			t.Errorf("%s of %s: no event", what, id)
			continue
		}
		if h != w {
			t.Errorf("%s of %s = %q, want %q", what, id, h, w)
		}
	}
}

// hintBothCalls is a step calling the two tools a and b with one payload.
func hintBothCalls(a, b, payload string) scripted.Step {
	return scripted.Calls(scripted.ToolCallSpec{Name: a, Payload: payload}, scripted.ToolCallSpec{Name: b, Payload: payload})
}

func TestCallHintTemplateTypedPayload(t *testing.T) {
	specs := []tools.ToolSpec{
		newSpec(t, "search", hintInToolset("typed"), withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .Query }} in {{ join .Tags ", " }}`)),
		// JSON keys do not exist on the typed root: the title shows.
		newSpec(t, "by_key", hintInToolset("typed"), withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .query }}`)),
	}
	f := hintTypedFixture(t, specs, nil, hintDecodePayload, nil, nil,
		hintBothCalls("search", "by_key", `{"query":"go templates","tags":["docs","web"]}`),
		scripted.Reply("done"),
	)
	f.run("search")
	hintCheck(t, "call hint", hintCallHints(f), map[tools.Ident]string{
		"typed.search": "Searching for: go templates in docs, web",
		"typed.by_key": "Tool by_key",
	})
}

func TestCallHintTemplateJSONKeysForCompiledTools(t *testing.T) {
	f := newFixture(t, RunPolicy{}, []fixtureTool{
		{spec: newSpec(t, "search", withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .query }} ({{ count .tags }} tags)`))},
		// Go field names do not exist without a Go struct: the title shows.
		{spec: newSpec(t, "by_field", withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .Query }}`))},
	},
		hintBothCalls("search", "by_field", `{"query":"go","tags":["a","b","c"]}`),
		scripted.Reply("done"),
	)
	f.run("search")
	hintCheck(t, "call hint", hintCallHints(f), map[tools.Ident]string{
		"ws.search":   "Searching for: go (3 tags)",
		"ws.by_field": "Tool by_field",
	})
}

func TestCallHintMissingKeyFallsBackToTitle(t *testing.T) {
	specs := []tools.ToolSpec{
		newSpec(t, "search", hintInToolset("typed"), withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .Query }} by {{ .Author }}`)),
	}
	f := hintTypedFixture(t, specs, nil, hintDecodePayload, nil, nil,
		scripted.Call("search", `{"query":"go"}`),
		scripted.Reply("done"),
	)
	f.run("search")
	g := newFixture(t, RunPolicy{}, []fixtureTool{
		{spec: newSpec(t, "search", withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .query }} by {{ .author }}`))},
	},
		scripted.Call("search", `{"query":"go"}`),
		scripted.Reply("done"),
	)
	g.run("search")
	hintCheck(t, "typed call hint", hintCallHints(f), map[tools.Ident]string{"typed.search": "Tool search"})
	hintCheck(t, "compiled call hint", hintCallHints(g), map[tools.Ident]string{"ws.search": "Tool search"})
}

func TestCallHintDecodeFailureFallsBackToTitle(t *testing.T) {
	failing := func(tools.Ident, json.RawMessage) (any, error) { return nil, errors.New("cannot decode") }
	specs := []tools.ToolSpec{
		// Either spelling would render from the JSON keys; neither may.
		newSpec(t, "search", hintInToolset("typed"), withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .query }}`)),
		newSpec(t, "find", hintInToolset("typed"), withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .Query }}`)),
	}
	f := hintTypedFixture(t, specs, nil, failing, nil, nil,
		hintBothCalls("search", "find", `{"query":"go"}`),
		scripted.Reply("done"),
	)
	f.run("search")
	hintCheck(t, "call hint", hintCallHints(f), map[tools.Ident]string{
		"typed.search": "Tool search",
		"typed.find":   "Tool find",
	})
}

func TestCallHintNeverRenderedFromRawJSON(t *testing.T) {
	raw := func(_ tools.Ident, p json.RawMessage) (any, error) { return p, nil }
	specs := []tools.ToolSpec{
		newSpec(t, "search", hintInToolset("typed"), withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ . }}`)),
	}
	f := hintTypedFixture(t, specs, nil, raw, nil, nil,
		scripted.Call("search", `{"query":"go"}`),
		scripted.Reply("done"),
	)
	f.run("search")
	bytesDecoder := func(_ tools.Ident, p json.RawMessage) (any, error) { return []byte(p), nil }
	g := hintTypedFixture(t, specs, nil, bytesDecoder, nil, nil,
		scripted.Call("search", `{"query":"go"}`),
		scripted.Reply("done"),
	)
	g.run("search")
	hintCheck(t, "call hint (json.RawMessage)", hintCallHints(f), map[tools.Ident]string{"typed.search": "Tool search"})
	hintCheck(t, "call hint ([]byte)", hintCallHints(g), map[tools.Ident]string{"typed.search": "Tool search"})
}

func TestResultHintTemplateSeesResultAndBounds(t *testing.T) {
	total := 10
	page := func(context.Context, *ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{
			Result: json.RawMessage(`{"count":2,"results":["a","b"]}`),
			Bounds: &planner.Bounds{Returned: 2, Total: &total, Truncated: true},
		}, nil
	}
	bounded := withBounds(tools.BoundsSpec{})
	specs := []tools.ToolSpec{
		newSpec(t, "search", hintInToolset("typed"), bounded, hintResultTemplate(`Found {{ .Result.Count }} of {{ .Bounds.Total }}{{ if .Bounds.Truncated }} (more){{ end }}`)),
	}
	f := hintTypedFixture(t, specs, map[string]handler{"search": page}, nil, hintDecodeResult, nil,
		scripted.Call("search", `{}`),
		scripted.Reply("done"),
	)
	f.run("search")
	g := newFixture(t, RunPolicy{}, []fixtureTool{
		{spec: newSpec(t, "search", bounded, hintResultTemplate(`{{ count .Result.results }} results, {{ .Bounds.Returned }} returned`)), handler: page},
	},
		scripted.Call("search", `{}`),
		scripted.Reply("done"),
	)
	g.run("search")
	hintCheck(t, "typed result hint", hintResultHints(f), map[tools.Ident]string{"typed.search": "Found 2 of 10 (more)"})
	hintCheck(t, "compiled result hint", hintResultHints(g), map[tools.Ident]string{"ws.search": "2 results, 2 returned"})
}

func TestResultHintExplicitDisplayHintNotOverwritten(t *testing.T) {
	f := newFixture(t, RunPolicy{}, []fixtureTool{
		{
			spec: newSpec(t, "search", hintResultTemplate(`Found {{ .Result.count }}`)),
			handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
				return &planner.ToolResult{Result: json.RawMessage(`{"count":2}`), DisplayHint: "Two matching documents"}, nil
			},
		},
		{spec: newSpec(t, "lookup", hintResultTemplate(`Found {{ .Result.count }}`)), handler: ok(`{"count":3}`)},
	},
		hintBothCalls("search", "lookup", `{}`),
		scripted.Reply("done"),
	)
	f.run("search")
	hintCheck(t, "result hint", hintResultHints(f), map[tools.Ident]string{
		"ws.search": "Two matching documents",
		"ws.lookup": "Found 3",
	})
}

func TestWithHintOverridesWins(t *testing.T) {
	specs := []tools.ToolSpec{
		newSpec(t, "search", hintInToolset("typed"), withPayload(t, hintQuerySchema), hintCallTemplate(`Searching for: {{ .Query }}`)),
		newSpec(t, "find", hintInToolset("typed"), withPayload(t, hintQuerySchema), hintCallTemplate(`Finding: {{ .Query }}`)),
		newSpec(t, "plain", hintInToolset("typed"), withPayload(t, hintQuerySchema)),
	}
	overrides := WithHintOverrides(map[tools.Ident]string{
		"typed.search": `Looking up {{ quote .Query }}`,
		"typed.plain":  `Working on it`,
	})
	f := hintTypedFixture(t, specs, nil, hintDecodePayload, nil, []Option{overrides},
		scripted.Calls(
			scripted.ToolCallSpec{Name: "search", Payload: `{"query":"go"}`},
			scripted.ToolCallSpec{Name: "find", Payload: `{"query":"go"}`},
			scripted.ToolCallSpec{Name: "plain", Payload: `{"query":"go"}`},
		),
		scripted.Reply("done"),
	)
	f.run("search")
	hintCheck(t, "call hint", hintCallHints(f), map[tools.Ident]string{
		"typed.search": `Looking up "go"`,
		"typed.find":   "Finding: go",
		"typed.plain":  "Working on it",
	})
}

func TestHintTemplateFunctions(t *testing.T) {
	const payload = `{"query":"templates","tags":["a","b"]}`
	specs := []tools.ToolSpec{
		newSpec(t, "search", hintInToolset("typed"), withPayload(t, hintQuerySchema),
			hintCallTemplate(`{{ join .Tags "+" }}|{{ count .Tags }}|{{ truncate .Query 5 }}|{{ json .Tags }}|{{ quote .Query }}`),
			hintResultTemplate(`{{ join .Result.Results "+" }}|{{ count .Result.Results }}|{{ json .Result }}`)),
	}
	f := hintTypedFixture(t, specs, map[string]handler{"search": ok(`{"count":2,"results":["x","y"]}`)}, hintDecodePayload, hintDecodeResult, nil,
		scripted.Call("search", payload),
		scripted.Reply("done"),
	)
	f.run("search")
	g := newFixture(t, RunPolicy{}, []fixtureTool{{
		spec: newSpec(t, "search", withPayload(t, hintQuerySchema),
			hintCallTemplate(`{{ join .tags "+" }}|{{ count .tags }}|{{ truncate .query 5 }}|{{ json .tags }}|{{ quote .query }}`)),
	}},
		scripted.Call("search", payload),
		scripted.Reply("done"),
	)
	g.run("search")
	const want = `a+b|2|temp…|["a","b"]|"templates"`
	hintCheck(t, "typed call hint", hintCallHints(f), map[tools.Ident]string{"typed.search": want})
	hintCheck(t, "compiled call hint", hintCallHints(g), map[tools.Ident]string{"ws.search": want})
	hintCheck(t, "typed result hint", hintResultHints(f), map[tools.Ident]string{"typed.search": `x+y|2|{"count":2,"results":["x","y"]}`})
}
