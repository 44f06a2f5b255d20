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
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/render"
	"github.com/quiver-go/quiver/tools"
)

// search answers the search tool with the discovery core: what it finds
// joins the session's listing, and the client is told.
func (ss *session) search(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	cur := ss.s.snapshot()
	if cur == nil {
		return toolError("The catalog is not available yet; try again in a moment."), nil
	}
	budget := ss.s.cfg.SearchBudget
	switch {
	case budget == 0:
		budget = DefaultSearchBudget
	case budget < 0:
		budget = math.MaxInt32
	}
	ss.mu.Lock()
	state := model.DiscoveryState{Tools: slices.Clone(ss.discovered), Searches: ss.searches}
	ss.mu.Unlock()
	mreq := &model.Request{
		Tools:     ss.inScope(cur),
		Search:    model.SearchSettings{Mode: model.SearchPortable, ToolName: SearchToolName, Cap: budget},
		Discovery: &state,
	}
	turn, err := ss.s.engine.Begin(mreq, SearchToolName)
	if err != nil {
		return nil, err
	}
	ans := turn.Search(req.Params.Arguments)
	if rec, ok := turn.Record(); ok {
		ss.mu.Lock()
		ss.searches += rec.Searches
		for _, id := range rec.Tools {
			if !slices.Contains(ss.discovered, id) {
				ss.discovered = append(ss.discovered, id)
			}
		}
		ss.mu.Unlock()
	}
	if len(ans.Tools) > 0 {
		ss.refresh()
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(ans.JSON)}},
		StructuredContent: json.RawMessage(ans.JSON),
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

// call runs one tools/call: scope, admission, payload, execution, result.
// Nothing runs unless every check before execution passes.
func (ss *session) call(ctx context.Context, wire string, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	cur := ss.s.snapshot()
	id, ok := cur.catalog.Ident(wire)
	t, served := cur.tools[id]
	if !ok || !served {
		return toolError(fmt.Sprintf("Tool %q is no longer served.", wire)), nil
	}
	tier := ss.tier
	if req.Extra != nil && req.Extra.Header != nil {
		// Each request is checked with its own credential: a session is
		// not a credential.
		if tier, ok = ss.s.tierOf(req.Extra.Header); !ok {
			return toolError("Refused: this request carries no valid credential."), nil
		}
	}
	spec := t.Spec
	if !ss.s.cfg.allows(tier, spec) {
		return toolError(fmt.Sprintf("Refused: %s is outside your scope (%s). Nothing ran.", wire, tier)), nil
	}
	if ss.s.gated(spec) {
		return toolError(fmt.Sprintf("Refused: %s needs a person's confirmation, which this server cannot ask for over MCP. Nothing ran.", wire)), nil
	}
	ss.mu.Lock()
	found := slices.Contains(ss.discovered, id)
	ss.mu.Unlock()
	if t.Deferred && !found && !ss.s.cfg.ExposeAll {
		return toolError(ss.refusal(cur, wire)), nil
	}
	payload, err := tools.CanonicalPayload(spec, req.Params.Arguments, tools.PayloadLimits{})
	if err != nil {
		return toolError("The arguments were refused; fix them and call again: " + err.Error()), nil
	}
	if err := spec.Payload.Validate(payload); err != nil {
		return toolError("The arguments do not match the tool's schema; fix them and call again:\n" + err.Error()), nil
	}
	// A call to a tool other than the search restores the search budget:
	// MCP has no turns, so a call is where the model's work moves on.
	ss.mu.Lock()
	ss.searches = 0
	ss.mu.Unlock()
	sessionID := ""
	if req.Session != nil {
		sessionID = req.Session.ID()
	}
	call := &runtime.ToolCall{
		Ident:   id,
		Spec:    spec.Clone(),
		Payload: payload,
		Meta:    tools.CallMeta{RunID: "mcp", SessionID: sessionID, ToolCallID: fmt.Sprintf("mcp-%d", calls.Add(1))},
		Labels:  ss.s.cfg.Labels,
	}
	res, err := t.Run(ctx, call)
	if err != nil {
		return toolError("The tool failed: " + err.Error()), nil
	}
	return shape(spec, res), nil
}

// shape turns a tool's result into the MCP answer: validated against the
// tool's contract, bounds projected, server data left on the server.
func shape(spec tools.ToolSpec, res *planner.ToolResult) *sdk.CallToolResult {
	if res == nil {
		return toolError("The tool returned no result.")
	}
	if f := res.Failure; f != nil {
		return toolError(string(toolResultJSON(map[string]string{"error": f.Code, "message": f.Message, "recovery": string(f.Recovery)})))
	}
	result := res.Result
	if len(result) == 0 {
		result = json.RawMessage(`{}`)
	}
	if err := spec.Result.Validate(result); err != nil {
		return toolError("The tool returned a result that breaks its own contract: " + err.Error())
	}
	if spec.Bounds != nil {
		if res.Bounds == nil {
			return toolError(fmt.Sprintf("Bounded tool %s returned no bounds.", spec.Name))
		}
		projected, err := render.ProjectBounds(result, *res.Bounds, spec.Bounds)
		if err != nil {
			return toolError(err.Error())
		}
		result = projected
	}
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(result)}}}
	if isObject(result) {
		out.StructuredContent = result
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

// toolError is a failed call the model reads.
func toolError(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg}}, IsError: true}
}

// refusal is the answer to a call of a tool not found yet: the search to
// make and the tools the session may call without one — only tools in its
// scope, so the message names nothing the client may not see.
func (ss *session) refusal(cur *served, wire string) string {
	ss.mu.Lock()
	snap := catalog.Snapshot{
		Discovered: slices.Clone(ss.discovered),
		Search:     model.SearchSettings{Mode: model.SearchPortable, ToolName: SearchToolName},
	}
	ss.mu.Unlock()
	for _, d := range ss.inScope(cur) {
		snap.Tools = append(snap.Tools, catalog.SnapshotTool{Ident: d.Ident, Wire: d.Name, Deferred: d.Deferred})
	}
	return snap.Admit(wire, "").Message
}
