package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// search answers the search tool with the discovery core: what it finds
// joins the session's listing, and the client is told — except in
// call-tool mode, where the listing stays as it is and the answer carries
// the found tools' input schemas instead.
func (ss *session) search(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	cur := ss.s.snapshot()
	if cur == nil {
		return notReady(), nil
	}
	budget := ss.s.cfg.SearchBudget
	switch {
	case budget == 0:
		budget = DefaultSearchBudget
	case budget < 0:
		budget = math.MaxInt32
	}
	ss.mu.Lock()
	state := ss.state
	state.Tools = slices.Clone(state.Tools)
	ss.mu.Unlock()
	mreq := &model.Request{
		Tools:     slices.Clone(ss.inScope(cur)),
		Search:    model.SearchSettings{Mode: model.SearchPortable, ToolName: SearchToolName, Cap: budget, CallTool: ss.s.cfg.CallTool},
		Discovery: &state,
	}
	turn, err := ss.s.engine.Begin(mreq, SearchToolName)
	if err != nil {
		return nil, err
	}
	ans := turn.Search(req.Params.Arguments)
	if rec, ok := turn.Record(); ok {
		ss.mu.Lock()
		ss.state.Apply(rec)
		ss.mu.Unlock()
	}
	text := ans.JSON
	if ss.s.cfg.CallTool {
		text = ans.CallToolJSON(CallToolName)
	} else if len(ans.Tools) > 0 {
		ss.refresh()
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(text),
		IsError:           ans.IsError(),
	}, nil
}

// calls numbers the calls the server runs, for their call ids.
var calls atomic.Int64

// caller returns the handler of the tool listed as wire.
func (ss *session) caller(wire string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return ss.call(ctx, wire, req)
	}
}

// call runs one tools/call of the tool listed (or served) as wire, with
// the request's arguments.
func (ss *session) call(ctx context.Context, wire string, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return ss.callArgs(ctx, wire, req.Params.Arguments, req)
}

// callArgs runs one call of wire with args, on behalf of req (whose
// credential and session it checks and records): scope, admission, then
// the tool-call pipeline the runtime runs too (toolcall.Run). Nothing runs
// unless every check before execution passes. A direct tools/call and a
// call through the call tool both come here.
func (ss *session) callArgs(ctx context.Context, wire string, args json.RawMessage, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	cur := ss.s.snapshot()
	id, ok := cur.catalog.Ident(wire)
	t, served := cur.tools[id]
	if !ok || !served {
		return failure(toolcall.Unavailable(wire)), nil
	}
	tier := ss.tier
	if req.Extra != nil && req.Extra.Header != nil {
		// Each request is checked with its own credential: a session is
		// not a credential.
		if tier, _, ok = ss.s.credentialOf(req.Extra.Header); !ok {
			return failure(toolcall.NotPermitted("this request carries no valid credential.")), nil
		}
	}
	spec := t.Spec
	if !ss.s.cfg.allows(tier, spec) {
		return failure(toolcall.NotPermitted(fmt.Sprintf("%s is outside your scope (%s).", wire, tier))), nil
	}
	if ss.s.gated(spec) {
		return failure(toolcall.NotPermitted(fmt.Sprintf("%s needs a person's confirmation, which this server cannot ask for over MCP.", wire))), nil
	}
	ss.mu.Lock()
	found := slices.Contains(ss.state.Tools, id)
	ss.mu.Unlock()
	if t.Deferred && !found && !ss.s.cfg.ExposeAll {
		return failure(toolcall.NotInActiveSet(ss.refusal(cur, wire))), nil
	}
	payload, f := toolcall.Canonicalize(spec, args, tools.PayloadLimits{})
	if f != nil {
		return failure(f), nil
	}
	sessionID := ""
	if req.Session != nil {
		sessionID = req.Session.ID()
	}
	call := &toolcall.Call{
		Ident:   id,
		Spec:    spec.Clone(),
		Payload: payload,
		Meta:    tools.CallMeta{RunID: "mcp", SessionID: sessionID, ToolCallID: fmt.Sprintf("mcp-%d", calls.Add(1))},
		Labels:  ss.s.cfg.Labels,
	}
	out, err := toolcall.Run(ctx, t.Executor, call, toolcall.Options{})
	if err != nil {
		return nil, err
	}
	if out.Ran {
		// A call that ran restores the search budget: MCP has no turns, so
		// a call is where the model's work moves on.
		ss.mu.Lock()
		ss.state.Searches, ss.state.Exhausted = 0, false
		ss.mu.Unlock()
	}
	return answer(out), nil
}

// answer is the MCP answer of a pipeline outcome: the result the model
// reads (also as structured content when it is an object), or the
// failure's JSON. Server data stays on the server: MCP has no timeline.
func answer(o toolcall.Outcome) *sdk.CallToolResult {
	if o.Failure != nil {
		return failure(o.Failure)
	}
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(o.Result)}}}
	if isObject(o.Result) {
		out.StructuredContent = o.Result
	}
	return out
}

// isObject reports whether raw is a JSON object (structuredContent must
// be one for clients of earlier protocol versions).
func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '{'
	}
	return false
}

// failure is a failed call as the model reads it: the failure's JSON
// (toolcall.Failure.JSON), the same the runtime shows.
func failure(f *toolcall.Failure) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(f.JSON())}}, IsError: true}
}

// notReady answers a search before the catalog was read once.
func notReady() *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "The catalog is not available yet; try again in a moment."}}, IsError: true}
}

// refusal is the answer to a call of a tool not found yet: the search to
// make and the tools the session may call without one — only tools in its
// scope, so the message names nothing the client may not see. In call-tool
// mode the found tools are named as the call the client makes of them
// (callable).
func (ss *session) refusal(cur *served, wire string) string {
	var names []string
	if ss.s.cfg.CallTool {
		names = ss.callable(cur)
	} else {
		defs, _ := ss.visible(cur)
		names = make([]string, len(defs))
		for i, d := range defs {
			names[i] = d.Name
		}
		slices.Sort(names)
	}
	return catalog.Refusal(wire, names, model.SearchSettings{Mode: model.SearchPortable, ToolName: SearchToolName}, "")
}
