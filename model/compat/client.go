package compat

import (
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
)

// Client is a model.Client for an OpenAI-compatible Chat Completions
// server. Requests whose agent opted into portable search
// (portable.Handles) are answered by portable.Wrap around the plain Chat
// Completions client; every other request goes to the plain client, which
// refuses deferred tools with model.ErrToolSearchUnsupported. It is safe
// for concurrent use.
type Client struct {
	search *portable.Client
}

// New returns a client for the server at WithBaseURL.
func New(opts ...Option) (*Client, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	// NewChatCompletionService is used instead of openai.NewClient on
	// purpose: NewClient layers DefaultClientOptions, which read
	// OPENAI_BASE_URL and OPENAI_API_KEY from the environment (openai-go/v3
	// client.go), and an OpenAI key must never reach a local server.
	reqOpts := []option.RequestOption{
		option.WithBaseURL(cfg.baseURL),
		option.WithHTTPClient(cfg.httpClient),
		option.WithMaxRetries(cfg.maxRetries),
	}
	if cfg.apiKey != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(cfg.apiKey))
	}
	raw := &chatClient{cfg: cfg, svc: openai.NewChatCompletionService(reqOpts...)}
	search := portable.Wrap(raw, portable.WithDiscovery(cfg.search))
	if err := search.SupportsSearch(model.SearchSettings{Mode: model.SearchPortable}); err != nil {
		// The search options are out of range.
		return nil, fmt.Errorf("compat: %w", err)
	}
	return &Client{search: search}, nil
}

// SupportsSearch implements model.SearchCapable: OpenAI-compatible servers
// have no native tool search, so the client searches only in portable
// mode, which it runs itself (no portable.Wrap needed).
func (c *Client) SupportsSearch(s model.SearchSettings) error {
	if s.Mode == model.SearchPortable {
		return c.search.SupportsSearch(s)
	}
	if s.Mode != model.SearchNative {
		return model.NativeSearch(s) // an unknown mode
	}
	return fmt.Errorf("compat: OpenAI-compatible servers have no native tool search: opt into portable search with Search.Mode model.SearchPortable (this client answers search_tools itself), or use an adapter with native search (model/openai, model/anthropic): %w", model.ErrToolSearchUnsupported)
}

// Complete implements model.Client. With deferred tools it needs the
// portable-search opt-in, else it returns model.ErrToolSearchUnsupported
// without contacting the server.
func (c *Client) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("compat: nil request")
	}
	return c.search.Complete(ctx, req)
}

// Stream implements model.Client. Plain requests stream from the server as
// server-sent events; requests with portable search complete their search
// rounds first and are then delivered as chunks (portable.Client.Stream).
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	if req == nil {
		return nil, errors.New("compat: nil request")
	}
	return c.search.Stream(ctx, req)
}

// chatClient is the plain Chat Completions client: one request per
// invocation, no search. portable.Wrap drives it for portable search.
type chatClient struct {
	cfg config
	svc openai.ChatCompletionService
}

// Complete sends one chat completion request.
func (c *chatClient) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	params, err := c.params(req)
	if err != nil {
		return nil, err
	}
	cc, err := c.svc.New(ctx, params)
	if err != nil {
		return nil, wrapSDKError(err)
	}
	resp, err := toResponse(cc)
	if err != nil {
		return nil, err
	}
	resp.IgnoredCheckpoints = ignoredCheckpoints(req)
	return resp, nil
}

// Stream sends one streaming chat completion request.
func (c *chatClient) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	params, err := c.params(req)
	if err != nil {
		return nil, err
	}
	return newStream(ctx, c.svc, params, ignoredCheckpoints(req))
}

// params checks that req fits the Chat Completions API and builds its
// parameters. Nothing here contacts the server.
func (c *chatClient) params(req *model.Request) (openai.ChatCompletionNewParams, error) {
	if model.HasDeferred(req.Tools) {
		// portable.Wrap only hands deferred tools down when the agent did
		// not opt into portable search: never fall back to eager tools.
		return openai.ChatCompletionNewParams{}, fmt.Errorf("compat: %d deferred tools and search mode %q: %w", countDeferred(req.Tools), searchModeName(req.Search.Mode), model.ErrToolSearchUnsupported)
	}
	id, err := c.cfg.modelID(req)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	p, err := buildParams(req, id, c.cfg.limitField)
	if err != nil {
		return p, err
	}
	return p, c.cfg.responseFormat(req.StructuredOutput, &p)
}

// countDeferred counts the deferred definitions of defs.
func countDeferred(defs []model.ToolDefinition) int {
	n := 0
	for _, d := range defs {
		if d.Deferred {
			n++
		}
	}
	return n
}

// searchModeName names a search mode for messages (the native mode is the
// empty string).
func searchModeName(m model.SearchMode) string {
	if m == model.SearchNative {
		return "native"
	}
	return string(m)
}

// compile-time checks
var (
	_ model.Client        = (*Client)(nil)
	_ model.SearchCapable = (*Client)(nil)
	_ model.Client        = (*chatClient)(nil)
)
