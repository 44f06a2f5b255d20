package openai

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
)

// DefaultSearchLimit is how many tools one search answers at most.
const DefaultSearchLimit = discovery.DefaultResultLimit

// Client is a model.Client over the OpenAI Responses API. Build it with New.
type Client struct {
	responses responses.ResponseService
	model     string
	classes   map[model.ModelClass]string
	// search answers the client-executed tool_search calls: one engine per
	// client, so consecutive requests with the same catalog share an index.
	search *discovery.Engine
}

var _ model.Client = (*Client)(nil)

// Option configures a Client.
type Option func(*config)

type config struct {
	baseURL     string
	apiKey      string
	httpClient  *http.Client
	maxRetries  *int
	model       string
	classes     map[model.ModelClass]string
	searchLimit int
	minRelative *float64
}

// WithBaseURL sets the API base URL (default https://api.openai.com/v1/, or
// $OPENAI_BASE_URL).
func WithBaseURL(u string) Option { return func(c *config) { c.baseURL = u } }

// WithAPIKey sets the API key (default $OPENAI_API_KEY).
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithHTTPClient sets the HTTP client requests go through.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithMaxRetries sets how many times the SDK retries a failed request
// (connection errors, 408, 409, 429 and 5xx); the SDK default is 2.
func WithMaxRetries(n int) Option { return func(c *config) { c.maxRetries = &n } }

// WithModel sets the model id used when a request names neither a model nor
// a class the client maps.
func WithModel(id string) Option { return func(c *config) { c.model = id } }

// WithClassModels maps model classes to model ids. A request without Model
// uses the id of its Class (model.ModelClassDefault when empty), then the
// WithModel id.
func WithClassModels(m map[model.ModelClass]string) Option {
	return func(c *config) { c.classes = maps.Clone(m) }
}

// WithSearchLimit sets how many tools one search answers at most
// (DefaultSearchLimit when n is not positive).
func WithSearchLimit(n int) Option { return func(c *config) { c.searchLimit = n } }

// WithMinRelativeScore sets the least score, as a fraction (0..1) of the
// best hit's, for a scored hit to be loaded by a search
// (discovery.DefaultMinRelativeScore when not given); 0 loads every hit up
// to the search limit. Name matches are always loaded.
func WithMinRelativeScore(f float64) Option { return func(c *config) { c.minRelative = &f } }

// New returns a Client. Options left unset fall back to the SDK's defaults,
// which read $OPENAI_API_KEY and $OPENAI_BASE_URL.
func New(opts ...Option) (*Client, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	var ro []option.RequestOption
	if cfg.baseURL != "" {
		ro = append(ro, option.WithBaseURL(cfg.baseURL))
	}
	if cfg.apiKey != "" {
		ro = append(ro, option.WithAPIKey(cfg.apiKey))
	}
	if cfg.httpClient != nil {
		ro = append(ro, option.WithHTTPClient(cfg.httpClient))
	}
	if cfg.maxRetries != nil {
		if *cfg.maxRetries < 0 {
			return nil, fmt.Errorf("openai: max retries must not be negative, got %d", *cfg.maxRetries)
		}
		ro = append(ro, option.WithMaxRetries(*cfg.maxRetries))
	}
	for class, id := range cfg.classes {
		if id == "" {
			return nil, fmt.Errorf("openai: model class %q maps to an empty model id", class)
		}
	}
	if cfg.searchLimit <= 0 {
		cfg.searchLimit = DefaultSearchLimit
	}
	engineOpts := []discovery.Option{discovery.WithResultLimit(cfg.searchLimit)}
	if f := cfg.minRelative; f != nil {
		if *f < 0 || *f > 1 {
			return nil, fmt.Errorf("openai: min relative score must be between 0 and 1, got %v", *f)
		}
		engineOpts = append(engineOpts, discovery.WithMinRelativeScore(*f))
	}
	sc := sdk.NewClient(ro...)
	return &Client{responses: sc.Responses, model: cfg.model, classes: cfg.classes, search: discovery.New(engineOpts...)}, nil
}

// ErrNoModel is returned for a request whose model id cannot be resolved.
var ErrNoModel = errors.New("openai: no model id")

// modelID resolves the model id of req.
func (c *Client) modelID(req *model.Request) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	class := req.Class
	if class == "" {
		class = model.ModelClassDefault
	}
	if id, ok := c.classes[class]; ok {
		return id, nil
	}
	if c.model != "" {
		return c.model, nil
	}
	return "", fmt.Errorf("%w for class %q: set Request.Model, or configure the client with WithModel or WithClassModels", ErrNoModel, class)
}

// Complete implements model.Client: it runs the invocation's search rounds
// and returns the model's answer with its ordinary tool calls.
func (c *Client) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("openai: nil request")
	}
	inv, err := c.newInvocation(req)
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
	resp.IgnoredCheckpoints = ignoredCheckpoints(req)
	return resp, nil
}

// Stream implements model.Client. It runs Complete, then delivers the
// response as chunks: one per text part, one per tool call, then
// model.ChunkDone with the whole response. Search rounds cannot be streamed
// piecemeal (each must end before the next request is prepared), so nothing
// arrives before the invocation ends.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := c.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}
