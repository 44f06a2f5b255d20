package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// minOutputTokens is the smallest max_output_tokens the Responses API
// accepts. The API reference does not state it; the rejection of lower
// values is reported, with a clamp, in QuantumNous/new-api#2866
// (service/openaicompat/chat_to_responses.go).
const minOutputTokens = 16

// invocation is one Complete call: the request as the provider sees it and
// what the rounds produced so far.
type invocation struct {
	c       *Client
	req     *model.Request
	modelID string

	instructions string
	eager        []responses.ToolUnionParam
	choice       responses.ResponseNewParamsToolChoiceUnion
	// deferred are the searchable definitions, in request order; byName and
	// byDoc index them by wire name and by search document name (the ident).
	deferred []model.ToolDefinition
	byName   map[string]int
	byDoc    map[string]int
	index    *search.Index

	// searchCap is the turn's budget; used counts the searches answered in
	// earlier invocations of the turn; exhausted is set once one was refused.
	searchCap, used int
	exhausted       bool

	// history is the input replayed from the request's messages; loaded
	// holds the wire names a replayed or new tool_search_output loads.
	history []responses.ResponseInputItemUnionParam
	loaded  map[string]bool

	// What this invocation produced: its items (raw, for metadata, and as
	// input for the next round), message parts, calls and discoveries.
	items    []json.RawMessage
	input    []responses.ResponseInputItemUnionParam
	parts    []model.Part
	calls    []model.ToolCall
	found    []tools.Ident
	searches int
	refused  bool
	usage    model.Usage
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
	inv := &invocation{
		c: c, req: req, modelID: id,
		byName:    make(map[string]int),
		byDoc:     make(map[string]int),
		loaded:    make(map[string]bool),
		searchCap: req.Search.SearchCap(),
		used:      model.SearchesThisTurn(req.Messages),
		exhausted: model.SearchExhaustedThisTurn(req.Messages),
	}
	if inv.choice, err = toolChoice(req.ToolChoice, req.Tools); err != nil {
		return nil, err
	}
	if err := inv.partition(); err != nil {
		return nil, err
	}
	if len(inv.deferred) > 0 && req.Search.Mode == model.SearchPortable {
		return nil, fmt.Errorf("openai: the request asks for portable search (%s) but reached the adapter directly: wrap the client with model/portable, or leave the agent on native search", req.Search.SearchToolName())
	}
	if len(inv.deferred) > 0 && req.MaxTokens <= 0 {
		return nil, ErrMaxTokensRequired
	}
	if err := inv.buildHistory(); err != nil {
		return nil, err
	}
	return inv, nil
}

// partition renders the eager definitions and indexes the deferred ones. A
// forced tool stays eager: the model must be able to call it at once.
func (inv *invocation) partition() error {
	forced := ""
	if inv.req.ToolChoice.Mode == model.ToolChoiceTool {
		forced = inv.req.ToolChoice.Name
	}
	seen := make(map[string]bool, len(inv.req.Tools))
	for _, d := range inv.req.Tools {
		if d.Name == "" {
			return fmt.Errorf("openai: tool %q has no wire name", d.Ident)
		}
		if seen[d.Name] {
			return fmt.Errorf("openai: two tools share the wire name %q", d.Name)
		}
		seen[d.Name] = true
		if !d.Deferred || d.Name == forced {
			t, err := functionTool(d)
			if err != nil {
				return err
			}
			inv.eager = append(inv.eager, t)
			continue
		}
		if d.Search == nil {
			return fmt.Errorf("openai: deferred tool %q has no search document", d.Name)
		}
		if _, dup := inv.byDoc[d.Search.Name]; dup {
			return fmt.Errorf("openai: deferred tools share the search document name %q", d.Search.Name)
		}
		inv.byName[d.Name] = len(inv.deferred)
		inv.byDoc[d.Search.Name] = len(inv.deferred)
		inv.deferred = append(inv.deferred, d)
	}
	return nil
}

// run sends rounds until the model answers without searching, the output
// budget is spent or the provider fails.
func (inv *invocation) run(ctx context.Context) (*model.Response, error) {
	maxRounds := inv.searchCap + 2
	for round := 0; ; round++ {
		budget := int64(0)
		if inv.req.MaxTokens > 0 {
			budget = int64(inv.req.MaxTokens - inv.usage.OutputTokens)
			if round > 0 && budget < minOutputTokens {
				return inv.result(model.StopMaxTokens), nil
			}
		}
		if round == maxRounds {
			return nil, fmt.Errorf("%w (%d rounds)", ErrSearchLoop, round)
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
	}
	if len(inv.deferred) > 0 && !inv.exhausted {
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
	if inv.searches > 0 || inv.refused {
		msg.SetDiscovery(model.Discovery{Tools: inv.found, Searches: inv.searches, Exhausted: inv.refused})
	}
	setRecord(&msg, record{Items: inv.items})
	return &model.Response{
		Messages:   []model.Message{msg},
		ToolCalls:  inv.calls,
		Usage:      inv.usage,
		StopReason: stop,
	}
}
