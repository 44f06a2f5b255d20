package anthropic

import (
	"context"
	"errors"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
)

// Client is a model.Client over the Anthropic Messages API
// (POST /v1/messages) through the official SDK. It is safe for concurrent
// use: each invocation keeps its state to itself.
type Client struct {
	api      sdk.Client
	settings settings
	// search answers the client-side search tool (SearchClient): one
	// engine per client, so consecutive requests with the same catalog
	// share an index.
	search *discovery.Engine
}

var (
	_ model.Client           = (*Client)(nil)
	_ model.SearchCapable    = (*Client)(nil)
	_ model.SearchInstructor = (*Client)(nil)
)

// New returns a Client configured by opts.
func New(opts ...Option) (*Client, error) {
	s := settings{search: SearchBM25, searchName: DefaultClientSearchToolName}
	for _, o := range opts {
		o(&s)
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	engine, err := discovery.New(s.discovery)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return &Client{api: sdk.NewClient(s.requestOptions()...), settings: s, search: engine}, nil
}

// Complete runs one invocation. With the hosted search variants it sends
// one request: the provider searches the deferred tools and expands their
// definitions itself. With SearchClient it answers the model's calls of
// the client-side search tool and re-requests, within the invocation's
// MaxTokens, until the model answers or calls ordinary tools. The returned
// Response holds one assistant message per provider response, ordinary
// calls only in ToolCalls, and the adapter's Record and the discovery
// record in the messages' metadata.
func (c *Client) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	inv, err := c.prepare(req)
	if err != nil {
		return nil, err
	}
	resp, err := inv.run(ctx)
	if err != nil {
		return nil, err
	}
	// A forced deferred tool is callable at once (sent eagerly, or loaded
	// by a reference of the history): record it so the runtime admits the
	// call.
	model.RecordForcedTool(req, resp)
	resp.IgnoredCheckpoints = inv.ignored
	return resp, nil
}

// invocation is the state of one Complete call.
type invocation struct {
	client  *Client
	req     *model.Request
	modelID string
	system  []sdk.TextBlockParam
	tools   *toolSet
	choice  sdk.ToolChoiceUnionParam
	// output is the structured output format (structured.go), zero for
	// none.
	output sdk.OutputConfigParam
	// turn is the discovery of the client-side search (SearchClient, when
	// the request carries the search tool); nil otherwise.
	turn *discovery.Turn
	// msgs is the transcript to send (leading system messages excluded),
	// growing with the invocation's own rounds.
	msgs []model.Message
	// ignored are the cache checkpoints the request asked for that have
	// nothing to follow, for model.Response.IgnoredCheckpoints.
	ignored []model.CacheCheckpoint
}

// prepare validates req and builds what every round of the invocation
// sends.
func (c *Client) prepare(req *model.Request) (*invocation, error) {
	if req == nil {
		return nil, errors.New("anthropic: nil request")
	}
	if req.MaxTokens <= 0 {
		return nil, fmt.Errorf("%w: the Messages API requires max_tokens: set Request.MaxTokens to a positive output-token cap (it also bounds the search rounds of the invocation)", ErrMaxTokensRequired)
	}
	modelID, err := model.ResolveModel(req, c.settings.classes, c.settings.model)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	if model.HasDeferred(req.Tools) {
		if err := model.NativeSearch(req.Search); err != nil {
			return nil, fmt.Errorf("anthropic: %w", err)
		}
	}
	if err := req.Search.CheckToolName(); err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	hist, err := historyOf(req.Messages)
	if err != nil {
		return nil, err
	}
	turn, eager, err := c.beginClientSearch(req, hist)
	if err != nil {
		return nil, err
	}
	ts, err := buildTools(req, &c.settings, hist, eager)
	if err != nil {
		return nil, err
	}
	choice, err := toolChoice(req.ToolChoice, ts)
	if err != nil {
		return nil, err
	}
	system, lead := systemBlocks(req)
	// A checkpoint with nothing to follow is ignored: left out of the
	// request and listed in the response (model.Response.IgnoredCheckpoints).
	var ignored []model.CacheCheckpoint
	if req.Cache.AfterSystem {
		// Anthropic docs, "Prompt caching": cache_control on the last system
		// block caches tools and system (SDK: TextBlockParam.CacheControl).
		if len(system) == 0 {
			ignored = append(ignored, model.CheckpointAfterSystem)
		} else {
			system[len(system)-1].CacheControl = sdk.NewCacheControlEphemeralParam()
		}
	}
	if req.Cache.AfterTools {
		placed, err := cacheLastTool(ts.params)
		if err != nil {
			return nil, err
		}
		if !placed {
			ignored = append(ignored, model.CheckpointAfterTools)
		}
	}
	if err := checkHistory(req.Messages, ts.prints); err != nil {
		return nil, err
	}
	inv := &invocation{client: c, req: req, modelID: modelID, system: system, tools: ts, choice: choice, msgs: slices.Clone(req.Messages[lead:]), ignored: ignored}
	if inv.output, err = outputConfig(req.StructuredOutput); err != nil {
		return nil, err
	}
	if turn != nil && ts.searchTool != "" {
		inv.turn = turn
	}
	return inv, nil
}

// beginClientSearch starts the discovery of the client-side search
// (SearchClient; nil for the hosted variants, which the provider runs).
// The conversation's discovered tools and the turn's used budget come from
// the request (Request.DiscoveryState, through the core's Begin). A tool
// the history references is loaded at the provider already: a search never
// references it again. eager are the discovered tools that no reference
// of the history loads (another adapter found them): they are sent without
// defer_loading, so they stay callable.
func (c *Client) beginClientSearch(req *model.Request, h searchHistory) (*discovery.Turn, map[string]bool, error) {
	if c.settings.search != SearchClient {
		return nil, nil, nil
	}
	turn, err := c.search.Begin(req, c.settings.clientSearchName(req.Search))
	if err != nil {
		return nil, nil, fmt.Errorf("anthropic: client-side search: %w", err)
	}
	for name := range h.referenced {
		turn.Load(name)
	}
	eager := make(map[string]bool)
	for _, d := range turn.LoadedTools() {
		if !h.referenced[d.Name] {
			eager[d.Name] = true
		}
	}
	return turn, eager, nil
}

// toolChoice maps the request's tool choice (SDK v2.15.0 message.go:
// ToolChoiceUnionParam — {"type":"auto"|"any"|"none"} or
// {"type":"tool","name"}). Auto is the provider's default and is not sent.
func toolChoice(tc model.ToolChoice, ts *toolSet) (sdk.ToolChoiceUnionParam, error) {
	switch tc.Mode {
	case model.ToolChoiceAuto:
		return sdk.ToolChoiceUnionParam{}, nil
	case model.ToolChoiceNone:
		if len(ts.params) == 0 {
			return sdk.ToolChoiceUnionParam{}, nil
		}
		return sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}, nil
	case model.ToolChoiceRequired:
		if len(ts.params) == 0 {
			return sdk.ToolChoiceUnionParam{}, errors.New("anthropic: tool choice required: the request has no tools")
		}
		return sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}, nil
	case model.ToolChoiceTool:
		if _, ok := ts.byWire[tc.Name]; !ok {
			return sdk.ToolChoiceUnionParam{}, fmt.Errorf("anthropic: tool choice forces %q, which the request does not define", tc.Name)
		}
		return sdk.ToolChoiceParamOfTool(tc.Name), nil
	}
	return sdk.ToolChoiceUnionParam{}, fmt.Errorf("anthropic: unknown tool choice mode %q", tc.Mode)
}

// run sends the invocation's rounds and assembles the response.
func (inv *invocation) run(ctx context.Context) (*model.Response, error) {
	resp := &model.Response{}
	remaining := inv.req.MaxTokens
	clientTool := ""
	if inv.turn != nil {
		clientTool = inv.tools.searchTool
	}
	for {
		if inv.turn != nil {
			// Rounds beyond the budget and the two to read a refusal and
			// answer fail with discovery.ErrSearchLoop.
			if err := inv.turn.NextRound(); err != nil {
				return nil, fmt.Errorf("anthropic: %w", err)
			}
		}
		msgs, err := renderMessages(inv.msgs)
		if err != nil {
			return nil, err
		}
		m, err := inv.client.api.Messages.New(ctx, sdk.MessageNewParams{
			Model:        sdk.Model(inv.modelID),
			MaxTokens:    int64(remaining),
			System:       inv.system,
			Messages:     msgs,
			Tools:        inv.tools.params,
			ToolChoice:   inv.choice,
			OutputConfig: inv.output,
		})
		if err != nil {
			return nil, wrapSDKError(err)
		}
		r, err := readReply(m, inv.tools, clientTool)
		if err != nil {
			return nil, err
		}
		resp.Usage = resp.Usage.Add(r.usage)
		if r.stop == sdk.StopReasonPauseTurn {
			return nil, fmt.Errorf("%w: the provider paused the turn (stop_reason pause_turn) after server-side work; continuing paused turns is not implemented", ErrPauseTurn)
		}
		var d model.Discovery
		if len(r.searches) > 0 {
			if d, err = inv.answerSearches(r); err != nil {
				return nil, err
			}
		}
		// Hosted searches run at the provider and are not counted (Searches
		// stays 0 for them); only the client-side ones are.
		d.Tools = append(d.Tools, r.found...)
		if err := setRecord(&r.msg, r.rec); err != nil {
			return nil, err
		}
		addDiscovery(&r.msg, d)
		resp.Messages = append(resp.Messages, r.msg)
		remaining -= r.usage.OutputTokens
		if len(r.searches) == 0 || len(r.calls) > 0 || r.stop == sdk.StopReasonMaxTokens || remaining <= 0 {
			resp.ToolCalls = r.calls
			resp.StopReason = stopReason(r.stop)
			if len(r.searches) > 0 && len(r.calls) == 0 {
				// Searches answered, but no output budget left to use them.
				resp.StopReason = model.StopMaxTokens
			}
			return resp, nil
		}
		inv.msgs = append(inv.msgs, r.msg)
	}
}

// Stream runs the invocation like Complete and delivers its response as
// chunks: one per text part, one per ordinary tool call, then ChunkDone with
// the whole response; then Recv returns io.EOF. It does not use the
// provider's server-sent events: a search round must finish before the
// adapter can answer it, and the response is only final once it has.
// Errors Complete would return are returned by Stream itself.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := c.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}

// SearchInstruction implements model.SearchInstructor: what a model that
// called a deferred tool it has not discovered is told to do. With the
// hosted variants the provider's search tool finds it; with the client-side
// variant the model calls our search tool; a request in portable mode never
// reaches this client unwrapped, but its instruction is the portable one.
func (c *Client) SearchInstruction(s model.SearchSettings) string {
	if s.Mode == model.SearchPortable {
		return s.PortableInstruction()
	}
	if c.settings.search == SearchClient {
		return "Call " + c.settings.clientSearchName(s) + "(query='%s') to discover it"
	}
	return "Search for '%s' with the tool search tool"
}

// SupportsSearch implements model.SearchCapable: the Messages API searches
// natively (hosted, or client-side with SearchClient), so native mode is
// supported; portable mode needs the client wrapped with portable.Wrap. A
// SearchSettings.ToolName that is not a valid tool name is refused too.
func (c *Client) SupportsSearch(s model.SearchSettings) error {
	if err := s.CheckToolName(); err != nil {
		return fmt.Errorf("anthropic: %w", err)
	}
	if err := model.NativeSearch(s); err != nil {
		return fmt.Errorf("anthropic: %w", err)
	}
	return nil
}
