package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

func TestReadOnlyClientListsSearchesAndCalls(t *testing.T) {
	e := newEnv(t, nil)
	c := e.mustConnect("ro-key")
	if got := c.names(t); !slices.Equal(got, []string{"find", "search_tools"}) {
		t.Fatalf("tools before a search = %v, want the inline read-only tool and the search", got)
	}
	text, isErr, _ := c.call(t, "search_tools", map[string]string{"query": "read an invoice"})
	if isErr || !strings.Contains(text, `"name":"lookup_invoice"`) {
		t.Fatalf("search = %s (error %v)", text, isErr)
	}
	c.waitChanges(t, 1)
	if got := c.names(t); !slices.Contains(got, "lookup_invoice") {
		t.Fatalf("tools after the search = %v, want lookup_invoice listed", got)
	}
	text, isErr, res := c.call(t, "lookup_invoice", map[string]int{"number": 7})
	if isErr || text != `{"ok":true,"tool":"lookup_invoice"}` {
		t.Fatalf("call = %s (error %v)", text, isErr)
	}
	var structured map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(raw, &structured) != nil || structured["tool"] != "lookup_invoice" {
		t.Fatalf("structuredContent = %s", raw)
	}
	if e.runs.of("ops.lookup_invoice") != 1 {
		t.Fatalf("runs = %v", e.runs.runs)
	}
}

func TestCallOutsideTheTierIsRefusedAndNothingRuns(t *testing.T) {
	e := newEnv(t, nil)
	c := e.mustConnect("ro-key")
	for _, name := range []string{"stage_refund", "purge_ledger"} {
		text, isErr, _ := c.call(t, name, map[string]any{})
		if !isErr || !strings.Contains(text, "outside your scope") {
			t.Errorf("%s: %s (error %v), want a refusal naming the scope", name, text, isErr)
		}
	}
	// Tools served to no one are invisible: unknown, as a name nobody
	// declared.
	for _, name := range []string{"secret_keys", "misc_note", "no_such_tool"} {
		_, err := c.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Errorf("%s: %v, want unknown tool", name, err)
		}
	}
	text, _, _ := c.call(t, "search_tools", map[string]string{"query": "purge the ledger"})
	if strings.Contains(text, "purge_ledger") {
		t.Fatalf("a read-only client found a full-tier tool: %s", text)
	}
	if e.runs.total() != 0 {
		t.Fatalf("runs = %v: nothing may run outside the caller's tier", e.runs.runs)
	}
}

func TestTiersAreNested(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.ExposeAll = true })
	for key, want := range map[string][]string{
		"ro-key":      {"find", "lookup_invoice"},
		"staging-key": {"find", "lookup_invoice", "stage_refund"},
		"full-key":    {"find", "lookup_invoice", "purge_ledger", "stage_refund"},
	} {
		if got := e.mustConnect(key).names(t); !slices.Equal(got, want) {
			t.Errorf("%s lists %v, want %v", key, got, want)
		}
	}
}

func TestUndeclaredAndApprovedTools(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) {
		c.ExposeAll = true
		c.Undeclared = tools.ExposureStaging
		c.Approved = []tools.Ident{"ops.send_payment"}
	})
	got := e.mustConnect("full-key").names(t)
	if !slices.Contains(got, "misc_note") || !slices.Contains(got, "send_payment") || slices.Contains(got, "secret_keys") {
		t.Fatalf("full client lists %v: undeclared tools at staging, the approved payment, never the excluded", got)
	}
	if got := e.mustConnect("ro-key").names(t); slices.Contains(got, "misc_note") {
		t.Fatalf("read-only client lists %v: undeclared tools need staging here", got)
	}
}

func TestConfirmationGatedToolIsRefused(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.ExposeAll = true })
	c := e.mustConnect("full-key")
	if slices.Contains(c.names(t), "send_payment") {
		t.Fatal("a tool needing confirmation is listed without the operator's approval")
	}
	text, isErr, _ := c.call(t, "send_payment", map[string]int{"amount": 5})
	if !isErr || !strings.Contains(text, "confirmation") && !strings.Contains(text, "unknown tool") {
		t.Fatalf("call = %s (error %v)", text, isErr)
	}
	if e.runs.total() != 0 {
		t.Fatal("the payment ran")
	}
}

func TestBadArgumentsComeBackAsToolErrors(t *testing.T) {
	e := newEnv(t, nil)
	c := e.mustConnect("ro-key")
	for _, args := range []any{
		map[string]any{"name": 7},
		map[string]any{},
		map[string]any{"name": "x", "extra": true},
		map[string]any{"name": "x", "Name": "y"},
	} {
		text, isErr, _ := c.call(t, "find", args)
		if f := failureOf(t, text); !isErr || f.Recovery != toolcall.RecoveryCorrectCall || (f.Error != toolcall.KindInvalidPayload && f.Error != toolcall.KindMissingFields) {
			t.Errorf("find(%v) = %s (error %v), want a correctable error", args, text, isErr)
		}
	}
	if e.runs.total() != 0 {
		t.Fatal("a refused payload ran")
	}
}

func TestSearchBudgetResetsAfterAnotherCall(t *testing.T) {
	e := newEnv(t, nil)
	c := e.mustConnect("full-key")
	for range mcp.DefaultSearchBudget {
		c.call(t, "search_tools", map[string]string{"query": "nothing like this exists"})
	}
	text, isErr, _ := c.call(t, "search_tools", map[string]string{"query": "invoice"})
	if !isErr || !strings.Contains(text, `"search-budget-exhausted"`) {
		t.Fatalf("fourth search = %s, want the budget's refusal", text)
	}
	c.call(t, "find", map[string]string{"name": "ada"})
	if text, isErr, _ := c.call(t, "search_tools", map[string]string{"query": "invoice"}); isErr {
		t.Fatalf("search after a call = %s: the call restores the budget", text)
	}
}

func TestMissingOrWrongCredentialIsRefused(t *testing.T) {
	e := newEnv(t, nil)
	for _, key := range []string{"", "nope"} {
		if _, err := e.connect(key); err == nil {
			t.Errorf("credential %q connected", key)
		}
	}
	// Other sessions keep being served.
	if got := e.mustConnect("ro-key").names(t); len(got) == 0 {
		t.Fatal("no tools")
	}
}

func TestCheckAddrNeedsCredentialsOffLoopback(t *testing.T) {
	src, _ := mcp.Toolsets(nil, nil)
	open, err := mcp.New(mcp.Config{Source: src, Anonymous: tools.ExposureFull})
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if err := open.CheckAddr("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if err := open.CheckAddr("0.0.0.0:7400"); err == nil || !strings.Contains(err.Error(), "needs credentials") {
		t.Fatalf("0.0.0.0 without credentials: %v", err)
	}
	_ = context.Background
}

func TestUndiscoveredToolNamesTheSearch(t *testing.T) {
	e := newEnv(t, nil)
	c := e.mustConnect("ro-key")
	text, isErr, _ := c.call(t, "lookup_invoice", map[string]int{"number": 1})
	if !isErr || !strings.Contains(text, "Tool 'lookup_invoice' not in active set. Call search_tools(query='lookup_invoice') to discover it, or use one of: find") {
		t.Fatalf("call before a search = %s (error %v), want the refusal naming the recovery call", text, isErr)
	}
	if e.runs.total() != 0 {
		t.Fatal("an undiscovered tool ran")
	}
}

func TestRefusalNamesOnlyToolsInScope(t *testing.T) {
	runs := &counter{runs: map[tools.Ident]int{}}
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: "ops", Specs: opsToolset(t), Executor: runs}},
		func(id tools.Ident) bool { return id == "ops.lookup_invoice" })
	if err != nil {
		t.Fatal(err)
	}
	e := startServer(t, mcp.Config{Source: src, Credentials: map[string]tools.Exposure{"ro-key": tools.ExposureReadOnly}})
	text, isErr, _ := e.mustConnect("ro-key").call(t, "lookup_invoice", map[string]int{"number": 1})
	if f := failureOf(t, text); !isErr || f.Error != toolcall.KindNotInActiveSet || !strings.HasSuffix(f.Message, "or use one of: find") {
		t.Fatalf("refusal = %q: it may name only the read-only client's tools", text)
	}
}

// A search that finds nothing names the tool the client almost named,
// in the same words as the adapters' searches (the discovery core answers
// all of them), and never a tool outside the client's scope.
func TestEmptySearchNamesTheClosestToolInScope(t *testing.T) {
	e := newEnv(t, nil)
	c := e.mustConnect("ro-key")
	// Three edits from lookup_invoice: past the fuzzy name tier.
	text, isErr, _ := c.call(t, "search_tools", map[string]string{"query": "lookpinvce"})
	if isErr {
		t.Fatalf("search = %s (error)", text)
	}
	var body struct {
		Tools   []any    `json:"tools"`
		Closest []string `json:"closest"`
		Message string   `json:"message"`
	}
	if err := json.Unmarshal([]byte(text), &body); err != nil {
		t.Fatalf("search answer %s: %v", text, err)
	}
	if len(body.Tools) != 0 || !slices.Equal(body.Closest, []string{"lookup_invoice"}) ||
		!strings.HasPrefix(body.Message, "No tool matched this query. Closest tool names: lookup_invoice (search for one by its exact name).") {
		t.Fatalf("search answer = %s, want no tools and lookup_invoice named as the closest", text)
	}
	// purge_ledger is one edit away but outside a read-only client's scope.
	text, _, _ = c.call(t, "search_tools", map[string]string{"query": "purgeledgr"})
	if strings.Contains(text, "purge_ledger") {
		t.Fatalf("a read-only client was told of a full-tier tool: %s", text)
	}
}
