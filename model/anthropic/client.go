package anthropic

import (
	"context"
	"errors"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/model"
)

// Client is a model.Client over the Anthropic Messages API
// (POST /v1/messages) through the official SDK. It is safe for concurrent
// use: each invocation keeps its state to itself.
type Client struct {
	api      sdk.Client
	settings settings
}

var _ model.Client = (*Client)(nil)

// New returns a Client configured by opts.
func New(opts ...Option) (*Client, error) {
	s := settings{search: SearchBM25, searchName: DefaultClientSearchToolName, limit: DefaultClientSearchLimit}
	for _, o := range opts {
		o(&s)
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &Client{api: sdk.NewClient(s.requestOptions()...), settings: s}, nil
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
	// A forced deferred tool was sent eagerly: record it so the runtime
	// admits the call.
	model.RecordForcedTool(req, resp)
	return resp, nil
}

// maxExtraSearchRounds bounds the client-side search rounds of one
// invocation beyond the per-turn budget.
const maxExtraSearchRounds = 2

// invocation is the state of one Complete call.
type invocation struct {
	client   *Client
	req      *model.Request
	modelID  string
	system   []sdk.TextBlockParam
	tools    *toolSet
	choice   sdk.ToolChoiceUnionParam
	searcher *searcher
	// msgs is the transcript to send (leading system messages excluded),
	// growing with the invocation's own rounds.
	msgs []model.Message
}

// prepare validates req and builds what every round of the invocation
// sends.
func (c *Client) prepare(req *model.Request) (*invocation, error) {
	if req == nil {
		return nil, errors.New("anthropic: nil request")
	}
	if req.MaxTokens <= 0 {
		return nil, ErrMaxTokensRequired
	}
	modelID, err := c.modelFor(req)
	if err != nil {
		return nil, err
	}
	if req.Search.Mode != model.SearchNative && model.HasDeferred(req.Tools) {
		return nil, fmt.Errorf("anthropic: search mode %q is run by the portable search wrapper, not by this adapter (which runs Anthropic's native search): %w", req.Search.Mode, model.ErrToolSearchUnsupported)
	}
	rest := req.Cache
	rest.AfterSystem, rest.AfterTools = false, false
	if rest != (model.CacheCheckpoints{}) {
		return nil, fmt.Errorf("anthropic: cache checkpoints %+v: only AfterSystem and AfterTools map to cache_control", req.Cache)
	}
	ts, err := buildTools(req, &c.settings, searched(req.Messages))
	if err != nil {
		return nil, err
	}
	choice, err := toolChoice(req.ToolChoice, ts)
	if err != nil {
		return nil, err
	}
	system, lead := systemBlocks(req)
	if req.Cache.AfterSystem {
		// Anthropic docs, "Prompt caching": cache_control on the last system
		// block caches tools and system (SDK: TextBlockParam.CacheControl).
		if len(system) == 0 {
			return nil, errors.New("anthropic: cache checkpoint AfterSystem: the request has no system prompt to place it after")
		}
		system[len(system)-1].CacheControl = sdk.NewCacheControlEphemeralParam()
	}
	if req.Cache.AfterTools {
		if err := cacheLastTool(ts.params); err != nil {
			return nil, err
		}
	}
	if err := checkHistory(req.Messages, ts.prints); err != nil {
		return nil, err
	}
	inv := &invocation{client: c, req: req, modelID: modelID, system: system, tools: ts, choice: choice, msgs: slices.Clone(req.Messages[lead:])}
	if c.settings.search == SearchClient && ts.searchTool != "" {
		if inv.searcher, err = newSearcher(ts, req, c.settings.limit); err != nil {
			return nil, err
		}
	}
	return inv, nil
}

// modelFor returns the model id of req: its Model, else the id of its class
// (model.ModelClassDefault when it names none), else the default model.
func (c *Client) modelFor(req *model.Request) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	class := req.Class
	if class == "" {
		class = model.ModelClassDefault
	}
	if id, ok := c.settings.classes[class]; ok {
		return id, nil
	}
	if c.settings.model != "" {
		return c.settings.model, nil
	}
	return "", fmt.Errorf("anthropic: the request names no model and class %q maps to none: set Request.Model, or configure WithModel or WithClassModel", class)
}

// searched reports whether msgs hold a search this adapter recorded.
func searched(msgs []model.Message) bool {
	for _, m := range msgs {
		if r, ok, _ := RecordOf(m); ok && len(r.Definitions) > 0 {
			return true
		}
	}
	return false
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
	if inv.searcher != nil {
		clientTool = inv.tools.searchTool
	}
	searchRounds := 0
	for {
		msgs, err := renderMessages(inv.msgs)
		if err != nil {
			return nil, err
		}
		m, err := inv.client.api.Messages.New(ctx, sdk.MessageNewParams{
			Model:      sdk.Model(inv.modelID),
			MaxTokens:  int64(remaining),
			System:     inv.system,
			Messages:   msgs,
			Tools:      inv.tools.params,
			ToolChoice: inv.choice,
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
			return nil, ErrPauseTurn
		}
		var d model.Discovery
		if len(r.searches) > 0 {
			if d, err = inv.searcher.answer(r, inv.tools); err != nil {
				return nil, err
			}
		}
		// Hosted searches run at the provider and are not counted (Searches
		// stays 0 for them); only the client-side ones are.
		d.Tools = r.found
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
		searchRounds++
		// Calls with unusable input are neither counted nor refused: the
		// rounds themselves are bounded too.
		if inv.searcher.refused > 1 || searchRounds > inv.searcher.budget+maxExtraSearchRounds {
			return nil, ErrSearchLoop
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
// variant the model calls our search tool.
func (c *Client) SearchInstruction() string {
	if c.settings.search == SearchClient {
		return "Call " + c.settings.searchName + "(query='%s') to discover it"
	}
	return "Search for '%s' with the tool search tool"
}

var _ model.SearchInstructor = (*Client)(nil)
