package openai

import (
	"encoding/json"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
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
			call := callOf(item.AsFunctionCall())
			inv.calls = append(inv.calls, call)
			tc := call
			inv.parts = append(inv.parts, model.Part{Kind: model.PartToolCall, ToolCall: &tc})
		case "tool_search_call":
			inv.searchCalls = true
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

// callOf is the tool call of a function_call item: its call_id, the name
// the model called (the wire name; a loaded tool's namespace is the same
// name) and its arguments. A streamed call's ChunkToolCall is built here
// too, so it is the call Complete returns.
func callOf(fc responses.ResponseFunctionToolCall) model.ToolCall {
	return model.ToolCall{ID: fc.CallID, Name: fc.Name, Payload: payloadOf(fc.Arguments)}
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

// answer executes one client search call through the discovery core
// (Turn.SearchQuery: budget, query, ranking with the weak-hit cut) and
// records its tool_search_output: {"type":"tool_search_output","call_id":
// <the call's>,"execution":"client","status":"completed","tools":[…]} —
// responses.ResponseToolSearchOutputItemParam (openai-go v3.99.0,
// responses/response.go: its fields are tools, status, call_id, execution,
// id and type: there is no text field) and "Client-executed tool search" in
// https://developers.openai.com/api/docs/guides/tools-tool-search ("Echo the
// same call_id from tool_search_call in your tool_search_output"). The tools
// are the answer's matches, as namespaced defer_loading functions.
//
// An answer that loads nothing — no match, budget spent, no query — still
// has to reach the model, and the output item cannot carry it: the output
// is sent with no tools and followed by a developer message whose content
// is the answer's JSON (answerMessage), e.g.
// {"error":"search-budget-exhausted","budgetCap":3}. Both are recorded, so
// they replay in place.
//
// A call the provider cut off (status other than "completed": its
// arguments may be partial) is not run or counted but is answered with no
// tools, so the stored items never hold a call without its output.
//
// It returns the search round the core answered — the query the model
// wrote and the wire names loaded, none when nothing was, for a streamed
// invocation's ChunkSearch — or nil for a call cut off, which ran no
// search.
func (inv *invocation) answer(call responses.ResponseToolSearchCall) (*model.SearchRound, error) {
	out := responses.ResponseToolSearchOutputItemParam{
		Tools:     []responses.ResponseToolSearchOutputItemParamToolUnion{},
		CallID:    sdk.String(call.CallID),
		Execution: responses.ResponseToolSearchOutputItemParamExecutionClient,
		Status:    responses.ResponseToolSearchOutputItemParamStatusCompleted,
	}
	var told json.RawMessage
	var searched *model.SearchRound
	if call.Status == responses.ResponseToolSearchCallStatusCompleted {
		query := queryOf(call.Arguments)
		a := inv.turn.SearchQuery(query)
		searched = &model.SearchRound{Query: query}
		for _, d := range a.Tools {
			ns, err := namespaceTool(d)
			if err != nil {
				return nil, err
			}
			out.Tools = append(out.Tools, ns)
			searched.Found = append(searched.Found, d.Name)
		}
		if a.Kind != discovery.Found {
			told = a.JSON
		}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("openai: encode tool_search_output: %w", err)
	}
	inv.record(raw)
	if told == nil {
		return searched, nil
	}
	if raw, err = json.Marshal(answerMessage(told)); err != nil {
		return nil, fmt.Errorf("openai: encode search answer: %w", err)
	}
	inv.record(raw)
	return searched, nil
}

// answerMessage is the input item that tells the model a search's answer
// when the tool_search_output cannot: {"type":"message","role":"developer",
// "content":<the answer's JSON>} — responses.EasyInputMessageParam
// (openai-go v3.99.0, responses/response.go: role "user", "assistant",
// "system" or "developer"; "Instructions given with the developer or system
// role take precedence over instructions given with the user role"), a
// member of the input item union (ResponseInputItemUnionParam.OfMessage)
// like the tool_search items around it. The developer role says that the
// application answers, not the user.
func answerMessage(answer json.RawMessage) responses.EasyInputMessageParam {
	return responses.EasyInputMessageParam{
		Type:    responses.EasyInputMessageTypeMessage,
		Role:    responses.EasyInputMessageRoleDeveloper,
		Content: responses.EasyInputMessageContentUnionParam{OfString: sdk.String(string(answer))},
	}
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
