package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// minOutputTokens is the smallest max_output_tokens the Responses API
// accepts. The API reference does not state it; the rejection of lower
// values is reported, with a clamp, in QuantumNous/new-api#2866
// (service/openaicompat/chat_to_responses.go).
const minOutputTokens = 16

// searchToolName is the name the model calls the client-executed search by
// (the type of the tool_search tool), for the answers that name it.
const searchToolName = "tool_search"

// functionNamePattern is the name pattern of function tools: "Must be a-z,
// A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64"
// (shared.FunctionDefinition.Name, openai-go v3.99.0 shared/shared.go; the
// Responses API's FunctionToolParam and the namespaced functions of a
// tool_search_output take the same names): the wire names
// tools.ValidWireName accepts.
const functionNamePattern = `^[a-zA-Z0-9_-]{1,64}$`

// invocation is one Complete call: the request as the provider sees it and
// what the rounds produced so far.
type invocation struct {
	c       *Client
	req     *model.Request
	modelID string

	instructions string
	eager        []responses.ToolUnionParam
	choice       responses.ResponseNewParamsToolChoiceUnion
	// text is the structured output format (structured.go), zero for none.
	text responses.ResponseTextConfigParam
	// forced is the wire name of the tool the request forces, "" for none.
	forced string
	// deferred are the searchable definitions by wire name.
	deferred map[string]model.ToolDefinition
	// turn is the invocation's discovery (package discovery): the
	// conversation's discovered tools and the turn's budget come from the
	// request's discovery state, the answers from the core.
	turn *discovery.Turn

	// history is the input replayed from the request's messages; loaded
	// holds the wire names a replayed tool_search_output loads.
	history []responses.ResponseInputItemUnionParam
	loaded  map[string]bool
	// searched maps each function a replayed tool_search_output loaded to
	// the namespaces it was loaded in ("" for outside any), for the
	// Bedrock replay rule (checkCallIdentity).
	searched map[string]map[string]bool
	// searchCalls is set once the input holds a tool_search_call (replayed
	// or of this invocation): tool_search then stays declared.
	searchCalls bool

	// What this invocation produced: its items (raw, for metadata, and as
	// input for the next round), message parts, calls and usage.
	items []json.RawMessage
	input []responses.ResponseInputItemUnionParam
	parts []model.Part
	calls []model.ToolCall
	usage model.Usage
}

// newInvocation validates req and prepares what every round sends.
func (c *Client) newInvocation(req *model.Request) (*invocation, error) {
	id, err := c.modelID(req)
	if err != nil {
		return nil, err
	}
	if req.MaxTokens < 0 {
		return nil, fmt.Errorf("openai: MaxTokens must not be negative, got %d", req.MaxTokens)
	}
	if err := req.Search.CheckToolName(); err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	inv := &invocation{
		c: c, req: req, modelID: id,
		deferred: make(map[string]model.ToolDefinition),
		loaded:   make(map[string]bool),
	}
	if inv.text, err = structuredText(req.StructuredOutput); err != nil {
		return nil, err
	}
	if inv.choice, err = toolChoice(req.ToolChoice, req.Tools); err != nil {
		return nil, err
	}
	if err := inv.partition(); err != nil {
		return nil, err
	}
	if len(inv.deferred) > 0 {
		if err := model.NativeSearch(req.Search); err != nil {
			return nil, fmt.Errorf("openai: %w", err)
		}
		if req.MaxTokens <= 0 {
			return nil, fmt.Errorf("%w: a request with deferred tools needs a positive MaxTokens, which its search rounds share", ErrMaxTokensRequired)
		}
	}
	if inv.turn, err = c.search.Begin(req, searchToolName); err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if err := inv.buildHistory(); err != nil {
		return nil, err
	}
	if err := inv.loadDiscovered(); err != nil {
		return nil, err
	}
	return inv, nil
}

// partition renders the eager definitions and keeps the deferred ones to
// search. A forced tool stays eager: the model must be able to call it at
// once.
func (inv *invocation) partition() error {
	if inv.req.ToolChoice.Mode == model.ToolChoiceTool {
		inv.forced = inv.req.ToolChoice.Name
	}
	seen := make(map[string]bool, len(inv.req.Tools))
	for _, d := range inv.req.Tools {
		if !tools.ValidWireName(d.Name) {
			return fmt.Errorf("openai: tool name %q must match %s", d.Name, functionNamePattern)
		}
		if seen[d.Name] {
			return fmt.Errorf("openai: two tools share the wire name %q", d.Name)
		}
		seen[d.Name] = true
		if d.Deferred && d.Name != inv.forced {
			inv.deferred[d.Name] = d
			continue
		}
		t, err := functionTool(d)
		if err != nil {
			return err
		}
		inv.eager = append(inv.eager, t)
	}
	return nil
}

// loadDiscovered reconciles the replayed history with the conversation's
// discovery state. A namespace a replayed tool_search_output holds is
// loaded at the provider already: a search must not load it twice. A tool
// the conversation discovered that no replayed output loads — discovered
// through another adapter, or whose definition changed since its output
// was sent (the replay dropped it) — is advertised as an ordinary function
// tool, so it stays callable without a search that could no longer find
// it.
func (inv *invocation) loadDiscovered() error {
	for name := range inv.loaded {
		inv.turn.Load(name)
	}
	for _, d := range inv.turn.LoadedTools() {
		if inv.loaded[d.Name] || d.Name == inv.forced {
			continue
		}
		t, err := functionTool(d)
		if err != nil {
			return err
		}
		inv.eager = append(inv.eager, t)
	}
	return nil
}

// run sends rounds until the model answers without searching, the output
// budget is spent or the provider fails.
func (inv *invocation) run(ctx context.Context) (*model.Response, error) {
	for round := 0; ; round++ {
		budget := int64(0)
		if inv.req.MaxTokens > 0 {
			budget = int64(inv.req.MaxTokens - inv.usage.OutputTokens)
			if round > 0 && budget < minOutputTokens {
				return inv.result(model.StopMaxTokens), nil
			}
		}
		if err := inv.turn.NextRound(); err != nil {
			return nil, fmt.Errorf("openai: %w", err)
		}
		resp, err := inv.c.responses.New(ctx, inv.params(budget))
		if err != nil {
			return nil, wrapSDKError(err)
		}
		inv.usage = inv.usage.Add(usageOf(resp.Usage))
		pending := inv.take(resp)
		switch resp.Status {
		case responses.ResponseStatusCompleted, "", responses.ResponseStatusIncomplete:
		default:
			return nil, fmt.Errorf("%w: status %q: %s: %s", ErrResponseFailed, resp.Status, resp.Error.Code, resp.Error.Message)
		}
		if reason := resp.IncompleteDetails.Reason; resp.Status == responses.ResponseStatusIncomplete && reason != "max_output_tokens" {
			return nil, fmt.Errorf("%w: incomplete (%s)", ErrResponseFailed, reason)
		}
		// Every completed search call is answered, even in a truncated
		// response, so that the stored items replay as a valid input.
		for _, call := range pending {
			if err := inv.answer(call); err != nil {
				return nil, err
			}
		}
		if resp.Status == responses.ResponseStatusIncomplete {
			return inv.result(model.StopMaxTokens), nil
		}
		if len(pending) == 0 || len(inv.calls) > 0 {
			// Done — or function calls need results before the model can
			// go on: answered searches are replayed with them next time.
			return inv.result(""), nil
		}
	}
}

// params builds one round's request body.
func (inv *invocation) params(budget int64) responses.ResponseNewParams {
	p := responses.ResponseNewParams{
		Model:      inv.modelID,
		Input:      responses.ResponseNewParamsInputUnion{OfInputItemList: slices.Concat(inv.history, inv.input)},
		Tools:      slices.Clone(inv.eager),
		ToolChoice: inv.choice,
		Text:       inv.text,
	}
	if inv.offersSearch() {
		p.Tools = append(p.Tools, searchTool())
	}
	if inv.instructions != "" {
		p.Instructions = sdk.String(inv.instructions)
	}
	if budget > 0 {
		p.MaxOutputTokens = sdk.Int(budget)
	}
	return p
}

// offersSearch reports whether the request declares tool_search: while
// there are deferred tools to search and no search of the turn was refused
// for budget yet, and in any case while the input holds a tool_search_call
// — an input whose items reference a tool the request does not declare may
// be rejected, so a history with search calls keeps its tool. A search
// past the budget is then still answered: refused, in words the model
// reads (answer).
func (inv *invocation) offersSearch() bool {
	return (len(inv.deferred) > 0 && !inv.turn.Exhausted()) || inv.searchCalls
}

// record keeps an item of this invocation, for metadata and as input.
func (inv *invocation) record(raw json.RawMessage) {
	inv.items = append(inv.items, raw)
	inv.input = append(inv.input, rawItem(raw))
}

// rawItem sends raw JSON as an input item, unchanged.
func rawItem(raw json.RawMessage) responses.ResponseInputItemUnionParam {
	return param.Override[responses.ResponseInputItemUnionParam](raw)
}

// result assembles the response; stop is derived when empty.
func (inv *invocation) result(stop model.StopReason) *model.Response {
	if stop == "" {
		stop = model.StopEndTurn
		if len(inv.calls) > 0 {
			stop = model.StopToolUse
		}
	}
	msg := model.Message{Role: model.RoleAssistant, Parts: inv.parts}
	if msg.Parts == nil {
		msg.Parts = []model.Part{}
	}
	if d, ok := inv.turn.Record(); ok {
		msg.SetDiscovery(d)
	}
	setRecord(&msg, record{Items: inv.items})
	return &model.Response{
		Messages:   []model.Message{msg},
		ToolCalls:  inv.calls,
		Usage:      inv.usage,
		StopReason: stop,
	}
}
