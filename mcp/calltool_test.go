package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// callTool sets Config.CallTool.
func callTool(c *mcp.Config) { c.CallTool = true }

// listing lists the session's tools: the result as marshalled, and the
// names in it.
func (c *client) listing(t *testing.T) ([]byte, []string) {
	t.Helper()
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return raw, names
}

// foundTools parses a search answer's tools.
func foundTools(t *testing.T, text string) (tools []struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}, message string) {
	t.Helper()
	var ans struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(text), &ans); err != nil {
		t.Fatalf("search answer %q: %v", text, err)
	}
	return ans.Tools, ans.Message
}

// invalidCallOf parses an invalid-call answer.
func invalidCallOf(text string) (kind, message string) {
	var a struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal([]byte(text), &a)
	return a.Error, a.Message
}

func TestCallToolListingNeverChangesThroughSearchAndCalls(t *testing.T) {
	src := newSwitchSource(t)
	e := startServer(t, mcp.Config{Source: src, CallTool: true, Credentials: map[string]tools.Exposure{"ro-key": tools.ExposureReadOnly}})
	c := e.mustConnect("ro-key")
	first, names := c.listing(t)
	if want := []string{mcp.CallToolName, "find", mcp.SearchToolName}; !slices.Equal(names, want) {
		t.Fatalf("listing = %v, want exactly the inline tool, %s and %s", names, mcp.SearchToolName, mcp.CallToolName)
	}
	var listings [][]byte
	step := func(what string) {
		t.Helper()
		raw, _ := c.listing(t)
		if !bytes.Equal(raw, first) {
			t.Fatalf("tools/list after %s changed:\n%s\nwas:\n%s", what, raw, first)
		}
		listings = append(listings, raw)
	}
	step("nothing")

	// The search finds the only deferred tool a read-only client may get:
	// nothing is left to find, and the search tool stays listed.
	text, isErr, _ := c.call(t, mcp.SearchToolName, map[string]string{"query": "read an invoice"})
	found, _ := foundTools(t, text)
	if isErr || !slices.ContainsFunc(found, func(f struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}) bool {
		return f.Name == "lookup_invoice"
	}) {
		t.Fatalf("search = %s (error %v), want lookup_invoice found", text, isErr)
	}
	step("the search")
	// A search matching it again answers it again, schema included: in
	// this mode answers are the only place its definition is.
	if again, _, _ := c.call(t, mcp.SearchToolName, map[string]string{"query": "invoice"}); !strings.Contains(again, `"name":"lookup_invoice"`) || !strings.Contains(again, `"inputSchema"`) {
		t.Fatalf("second search = %s, want lookup_invoice again with its schema", again)
	}
	step("a search finding it again")
	if none, _, _ := c.call(t, mcp.SearchToolName, map[string]string{"query": "zebra migration"}); !strings.Contains(none, `"tools":[]`) {
		t.Fatalf("a search for nothing = %s", none)
	}
	step("a search finding nothing")

	text, isErr, res := c.call(t, mcp.CallToolName, map[string]any{"name": "lookup_invoice", "arguments": map[string]int{"number": 7}})
	if isErr || text != `{"ok":true,"tool":"lookup_invoice"}` {
		t.Fatalf("call_tool(lookup_invoice) = %s (error %v), want its result", text, isErr)
	}
	if raw, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(raw), `"tool":"lookup_invoice"`) {
		t.Fatalf("structuredContent = %s, want the tool's result", raw)
	}
	step("call_tool")
	if text, isErr, _ := c.call(t, "find", map[string]string{"name": "ada"}); isErr || !strings.Contains(text, `"tool":"find"`) {
		t.Fatalf("find = %s (error %v)", text, isErr)
	}
	step("a direct call")
	if len(listings) != 6 {
		t.Fatalf("compared %d listings", len(listings))
	}

	// No list_changed for discovery (the SDK sends one 10ms after a
	// change; a search that changed the list would have by now).
	time.Sleep(300 * time.Millisecond)
	if n := c.changes.Load(); n != 0 {
		t.Fatalf("%d tools/list_changed notifications after searches and calls, want none", n)
	}
	// A catalog change of the inline tools still changes the list, and
	// the client is told: the notifications do reach it.
	src.flip()
	c.waitChanges(t, 1)
	if _, names := c.listing(t); !slices.Equal(names, []string{mcp.CallToolName, mcp.SearchToolName}) {
		t.Fatalf("listing after find left the catalog = %v, want only %s and %s", names, mcp.CallToolName, mcp.SearchToolName)
	}
}

func TestCallToolOfAToolNotFoundYetIsRefusedAndNothingRuns(t *testing.T) {
	e := newEnv(t, callTool)
	c := e.mustConnect("full-key")
	args := map[string]any{"name": "stage_refund", "arguments": map[string]int{"invoice": 1}}
	text, isErr, _ := c.call(t, mcp.CallToolName, args)
	f := failureOf(t, text)
	if !isErr || f.Error != toolcall.KindNotInActiveSet || f.Recovery != toolcall.RecoveryCorrectCall ||
		!strings.HasPrefix(f.Message, "Tool 'stage_refund' not in active set. Call search_tools(query='stage_refund') to discover it, or use one of: find") {
		t.Fatalf("call_tool(stage_refund) before a search = %s (error %v), want not_in_active_set naming the search", text, isErr)
	}
	// The same refusal as a direct call of the tool.
	if direct, _, _ := c.call(t, "stage_refund", map[string]int{"invoice": 1}); direct != text {
		t.Fatalf("direct call refused with %s, call_tool with %s: want the same", direct, text)
	}
	// Once a tool is found, the refusal names it as the client calls it:
	// through call_tool, since it is not in the tool list.
	if s, _, _ := c.call(t, mcp.SearchToolName, map[string]string{"query": "lookup_invoice"}); !strings.Contains(s, `"name":"lookup_invoice"`) {
		t.Fatalf("search = %s", s)
	}
	text, _, _ = c.call(t, mcp.CallToolName, args)
	if f := failureOf(t, text); f.Error != toolcall.KindNotInActiveSet || !strings.Contains(f.Message, "or use one of: find, call_tool(name='lookup_invoice')") {
		t.Fatalf("refusal after finding lookup_invoice = %s, want it named as call_tool(name='lookup_invoice')", text)
	}
	if n := e.runs.total(); n != 0 {
		t.Fatalf("runs = %v: a tool no search found ran", e.runs.runs)
	}
}

func TestCallToolAboveTheTierIsRefusedAsADirectCall(t *testing.T) {
	e := newEnv(t, callTool)
	c := e.mustConnect("ro-key")
	for _, name := range []string{"stage_refund", "purge_ledger"} {
		text, isErr, _ := c.call(t, mcp.CallToolName, map[string]any{"name": name, "arguments": map[string]any{}})
		if f := failureOf(t, text); !isErr || f.Error != toolcall.KindNotPermitted || !strings.Contains(f.Message, "outside your scope (read_only)") {
			t.Errorf("call_tool(%s) from read_only = %s (error %v), want not_permitted", name, text, isErr)
		}
		if direct, _, _ := c.call(t, name, map[string]any{}); direct != text {
			t.Errorf("%s: direct call answered %s, call_tool %s: want the same", name, direct, text)
		}
	}
	// A confirmation-gated tool is refused too, even for the full tier.
	full := e.mustConnect("full-key")
	text, isErr, _ := full.call(t, mcp.CallToolName, map[string]any{"name": "send_payment", "arguments": map[string]int{"amount": 5}})
	if f := failureOf(t, text); !isErr || f.Error != toolcall.KindNotPermitted || !strings.Contains(f.Message, "confirmation") {
		t.Errorf("call_tool(send_payment) = %s (error %v), want the confirmation refusal", text, isErr)
	}
	// Bad arguments get the tool codec's own correctable error.
	text, isErr, _ = c.call(t, mcp.CallToolName, map[string]any{"name": "find", "arguments": map[string]any{"name": 7}})
	if f := failureOf(t, text); !isErr || f.Recovery != toolcall.RecoveryCorrectCall {
		t.Errorf("call_tool(find, name: 7) = %s (error %v), want a correctable error", text, isErr)
	}
	if direct, _, _ := c.call(t, "find", map[string]any{"name": 7}); direct != text {
		t.Errorf("find(name: 7): direct call answered %s, call_tool %s: want the same", direct, text)
	}
	if n := e.runs.total(); n != 0 {
		t.Fatalf("runs = %v: nothing may run outside the caller's tier", e.runs.runs)
	}
}

func TestMalformedCallToolIsAnInvalidCallAndRunsNothing(t *testing.T) {
	e := newEnv(t, callTool)
	c := e.mustConnect("full-key")
	for _, tc := range []struct {
		args any
		says string
	}{
		{map[string]any{}, `takes {"name"`},
		{map[string]any{"arguments": map[string]any{"name": "ada"}}, `takes {"name"`},
		{map[string]any{"name": ""}, `takes {"name"`},
		{map[string]any{"name": 7}, `takes {"name"`},
		{map[string]any{"name": "find", "args": map[string]any{}}, `takes {"name"`},
		{map[string]any{"name": "find", "arguments": []int{1}}, `must be a JSON object (the tool's arguments), not an array`},
		{map[string]any{"name": "find", "arguments": "name=ada"}, `not a string`},
		{map[string]any{"name": mcp.CallToolName, "arguments": map[string]any{"name": "find"}}, "cannot call itself"},
		{map[string]any{"name": mcp.SearchToolName, "arguments": map[string]any{"query": "invoice"}}, "call search_tools directly"},
		// Unknown and served to no one alike: nothing tells them apart.
		{map[string]any{"name": "no_such_tool"}, `there is no tool "no_such_tool"`},
		{map[string]any{"name": "secret_keys"}, `there is no tool "secret_keys"`},
	} {
		text, isErr, _ := c.call(t, mcp.CallToolName, tc.args)
		if kind, msg := invalidCallOf(text); !isErr || kind != "invalid-call" || !strings.Contains(msg, tc.says) {
			t.Errorf("call_tool(%v) = %s (error %v), want an invalid-call error saying %q", tc.args, text, isErr, tc.says)
		}
	}
	if n := e.runs.total(); n != 0 {
		t.Fatalf("runs = %v: a malformed call ran", e.runs.runs)
	}
	// A call that did not run leaves the search budget spent.
	for range mcp.DefaultSearchBudget {
		c.call(t, mcp.SearchToolName, map[string]string{"query": "nothing like this exists"})
	}
	c.call(t, mcp.CallToolName, map[string]any{})
	if text, isErr, _ := c.call(t, mcp.SearchToolName, map[string]string{"query": "invoice"}); !isErr || !strings.Contains(text, "search-budget-exhausted") {
		t.Fatalf("search after a malformed call_tool = %s, want the budget still spent", text)
	}
	// One that ran restores it, as a direct call does.
	if text, isErr, _ := c.call(t, mcp.CallToolName, map[string]any{"name": "find", "arguments": map[string]string{"name": "ada"}}); isErr {
		t.Fatalf("call_tool(find) = %s", text)
	}
	if text, isErr, _ := c.call(t, mcp.SearchToolName, map[string]string{"query": "invoice"}); isErr {
		t.Fatalf("search after call_tool ran = %s: the call restores the budget", text)
	}
}

func TestCallToolSearchAnswerCarriesInputSchemas(t *testing.T) {
	e := newEnv(t, callTool)
	text, isErr, _ := e.mustConnect("full-key").call(t, mcp.SearchToolName, map[string]string{"query": "invoice refund"})
	found, message := foundTools(t, text)
	if isErr || len(found) == 0 {
		t.Fatalf("search = %s (error %v), want tools found", text, isErr)
	}
	want := map[string]string{"lookup_invoice": "number", "stage_refund": "invoice"}
	for _, f := range found {
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(f.InputSchema, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: inputSchema %s, want an object schema", f.Name, f.InputSchema)
			continue
		}
		if prop, ok := want[f.Name]; ok && schema.Properties[prop] == nil {
			t.Errorf("%s: inputSchema %s, want its %q property", f.Name, f.InputSchema, prop)
		}
	}
	if !strings.Contains(message, "call_tool(name=") {
		t.Errorf("search answer message %q, want it to say how to call the tools found", message)
	}
	// Without call-tool mode the answer names the tools only: they join
	// the tool list with their schemas.
	plain, _, _ := newEnv(t, nil).mustConnect("full-key").call(t, mcp.SearchToolName, map[string]string{"query": "invoice refund"})
	if found, _ := foundTools(t, plain); len(found) == 0 || found[0].InputSchema != nil {
		t.Errorf("search without call-tool mode = %s, want names without schemas", plain)
	}
}

func TestCallToolWithExposeAllIsRefused(t *testing.T) {
	src, _ := mcp.Toolsets(nil, nil)
	_, err := mcp.New(mcp.Config{Source: src, Anonymous: tools.ExposureReadOnly, CallTool: true, ExposeAll: true})
	if err == nil || !strings.Contains(err.Error(), "pick one") || !strings.Contains(err.Error(), "Config.CallTool") || !strings.Contains(err.Error(), "Config.ExposeAll") {
		t.Fatalf("New(CallTool, ExposeAll) = %v, want an error saying to pick one", err)
	}
}

func TestCallToolNameClashesInCallToolMode(t *testing.T) {
	obj := json.RawMessage(`{"type":"object","properties":{}}`)
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "x", Tools: []contract.ToolDeclaration{
		{Name: mcp.CallToolName, Title: "Call", Description: "Call something.", InputSchema: obj, OutputSchema: obj, Exposure: tools.ExposureReadOnly},
	}})
	if err != nil {
		t.Fatal(err)
	}
	runs := &counter{runs: map[tools.Ident]int{}}
	for _, on := range []bool{false, true} {
		src, err := mcp.Toolsets([]toolcall.Toolset{{Name: "x", Specs: specs, Executor: runs}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := mcp.New(mcp.Config{Source: src, Anonymous: tools.ExposureReadOnly, CallTool: on})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = s.Ready(ctx)
		cancel()
		_ = s.Close()
		switch {
		case on && (err == nil || !strings.Contains(err.Error(), `"call_tool"`)):
			t.Errorf("a tool called call_tool in call-tool mode: %v, want the clash", err)
		case !on && err != nil:
			t.Errorf("a tool called call_tool without call-tool mode: %v, want it served", err)
		}
	}
}

func TestCallToolOverATransportSession(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.CallTool = true; c.Anonymous = tools.ExposureReadOnly })
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.server.ServeTransport(ctx, st) }()
	t.Cleanup(func() { cancel(); <-done })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "mem", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	call := func(name string, args any) string {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	// The anonymous tier is checked as a credential's is.
	if f := failureOf(t, call(mcp.CallToolName, map[string]any{"name": "stage_refund"})); f.Error != toolcall.KindNotPermitted {
		t.Fatalf("call_tool(stage_refund) from the anonymous read-only tier: %+v, want not_permitted", f)
	}
	call(mcp.SearchToolName, map[string]string{"query": "lookup_invoice"})
	if got := call(mcp.CallToolName, map[string]any{"name": "lookup_invoice", "arguments": map[string]int{"number": 2}}); got != `{"ok":true,"tool":"lookup_invoice"}` {
		t.Fatalf("call_tool(lookup_invoice) = %s", got)
	}
	if e.runs.of("ops.lookup_invoice") != 1 || e.runs.total() != 1 {
		t.Fatalf("runs = %v, want lookup_invoice once", e.runs.runs)
	}
}
