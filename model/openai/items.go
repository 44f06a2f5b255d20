package openai

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// take records a response's output items and turns them into message parts
// and tool calls; it returns the client-executed search calls to answer.
// Item shapes (responses.ResponseOutputItemUnion, openai-go v3.99.0):
//   - "message": assistant content, "output_text" ({"text"}) or "refusal"
//     ({"refusal"}) parts — responses.ResponseOutputMessage;
//   - "function_call": {"call_id","name","arguments","namespace"?} —
//     responses.ResponseFunctionToolCall; the namespace of a loaded tool is
//     the tool's own name (tool search guide, "Client-executed tool
//     search"), so the call's Name is used as the wire name;
//   - "tool_search_call": {"call_id","execution":"client","arguments"} —
//     responses.ResponseToolSearchCall.
//
// Every item is kept verbatim (RawJSON is the JSON the provider sent), so
// reasoning and any other item replay exactly.
func (inv *invocation) take(resp *responses.Response) []responses.ResponseToolSearchCall {
	var pending []responses.ResponseToolSearchCall
	for _, item := range resp.Output {
		if item.RawJSON() == "" {
			continue // not an item the SDK decoded from the provider
		}
		inv.record(json.RawMessage(item.RawJSON()))
		switch item.Type {
		case "message":
			for _, c := range item.AsMessage().Content {
				switch c.Type {
				case "output_text":
					inv.parts = append(inv.parts, model.Text(c.Text))
				case "refusal":
					inv.parts = append(inv.parts, model.Text(c.Refusal))
				}
			}
		case "function_call":
			fc := item.AsFunctionCall()
			call := model.ToolCall{ID: fc.CallID, Name: fc.Name, Payload: payloadOf(fc.Arguments)}
			inv.calls = append(inv.calls, call)
			tc := call
			inv.parts = append(inv.parts, model.Part{Kind: model.PartToolCall, ToolCall: &tc})
		case "tool_search_call":
			// Every client search call is answered, a truncated one too
			// (answer runs only completed ones): a call without its output
			// would make the stored items an invalid input.
			sc := item.AsToolSearchCall()
			if sc.Execution == responses.ResponseToolSearchCallExecutionClient {
				pending = append(pending, sc)
			}
		}
	}
	return pending
}

// payloadOf returns a call's arguments as JSON. Arguments that are not JSON
// are kept as a JSON string, for the tool's codec to reject with a message
// the model reads; empty arguments are the empty object.
func payloadOf(args string) json.RawMessage {
	switch {
	case args == "":
		return json.RawMessage(`{}`)
	case json.Valid([]byte(args)):
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args) // a string always encodes
	return b
}

// usageOf converts the provider's usage ("usage" of a response:
// responses.ResponseUsage, with input_tokens_details.cached_tokens and
// cache_write_tokens).
func usageOf(u responses.ResponseUsage) model.Usage {
	return model.Usage{
		InputTokens:      int(u.InputTokens),
		OutputTokens:     int(u.OutputTokens),
		CacheReadTokens:  int(u.InputTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.InputTokensDetails.CacheWriteTokens),
	}
}

// answer executes one client search call and records its
// tool_search_output: {"type":"tool_search_output","call_id":<the call's>,
// "execution":"client","status":"completed","tools":[…]} —
// responses.ResponseToolSearchOutputItemParam (openai-go v3.99.0,
// responses/response.go) and "Client-executed tool search" in
// https://developers.openai.com/api/docs/guides/tools-tool-search ("Echo the
// same call_id from tool_search_call in your tool_search_output"). Within
// the turn's budget the tools are the best matches not loaded yet; past it
// the list is empty and tool_search is withdrawn for the rest of the turn.
func (inv *invocation) answer(call responses.ResponseToolSearchCall) error {
	var matches []model.ToolDefinition
	switch {
	case call.Status != responses.ResponseToolSearchCallStatusCompleted:
		// Cut off by the provider (its arguments may be partial): not run,
		// not counted, answered with no tools.
	case inv.used+inv.searches < inv.searchCap:
		inv.searches++
		var err error
		if matches, err = inv.rank(queryOf(call.Arguments)); err != nil {
			return err
		}
	default:
		inv.exhausted = true
		inv.refused = true
	}
	loaded := make([]responses.ResponseToolSearchOutputItemParamToolUnion, 0, len(matches))
	for _, d := range matches {
		ns, err := namespaceTool(d)
		if err != nil {
			return err
		}
		loaded = append(loaded, ns)
		inv.loaded[d.Name] = true
		id := d.Ident
		if id == "" {
			id = tools.Ident(d.Search.Name)
		}
		if !slices.Contains(inv.found, id) {
			inv.found = append(inv.found, id)
		}
	}
	out := responses.ResponseToolSearchOutputItemParam{
		Tools:     loaded,
		CallID:    sdk.String(call.CallID),
		Execution: responses.ResponseToolSearchOutputItemParamExecutionClient,
		Status:    responses.ResponseToolSearchOutputItemParamStatusCompleted,
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("openai: encode tool_search_output: %w", err)
	}
	inv.record(raw)
	return nil
}

// rank returns the deferred definitions that best match query, at most the
// client's search limit, leaving out those already loaded.
func (inv *invocation) rank(query string) ([]model.ToolDefinition, error) {
	if strings.TrimSpace(query) == "" || len(inv.deferred) == 0 {
		return nil, nil
	}
	if inv.index == nil {
		ix, err := search.NewIndex(search.DefaultParams())
		if err != nil {
			return nil, fmt.Errorf("openai: search index: %w", err)
		}
		for _, d := range inv.deferred {
			if err := ix.Add(*d.Search); err != nil {
				return nil, fmt.Errorf("openai: deferred tool %q: %w", d.Name, err)
			}
		}
		inv.index = ix
	}
	limit := inv.c.searchLimit
	var out []model.ToolDefinition
	for _, h := range inv.index.Search(query, limit+len(inv.loaded)) {
		d := inv.deferred[inv.byDoc[h.Name]]
		if inv.loaded[d.Name] {
			continue
		}
		out = append(out, d)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// queryOf reads the "query" argument of a search call. The SDK decodes
// "arguments" as any: an object, or a string holding one.
func queryOf(args any) string {
	if s, ok := args.(string); ok {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return s
		}
		args = v
	}
	if m, ok := args.(map[string]any); ok {
		if q, ok := m["query"].(string); ok {
			return q
		}
	}
	return ""
}
