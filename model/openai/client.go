package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/bedrock"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
)

// DefaultSearchLimit is how many tools one search answers at most
// (discovery.DefaultSearchLimit).
const DefaultSearchLimit = discovery.DefaultSearchLimit

// Client is a model.Client over the OpenAI Responses API. Build it with New.
type Client struct {
	responses responses.ResponseService
	model     string
	classes   map[model.ModelClass]string
	// search answers the client-executed tool_search calls: one engine per
	// client, so consecutive requests with the same catalog share an index.
	search *discovery.Engine
	// bedrock is set when requests go to Amazon Bedrock (WithBedrock): a
	// replayed history must then give every call of a searched tool its
	// namespace (checkCallIdentity).
	bedrock bool
}

var (
	_ model.Client        = (*Client)(nil)
	_ model.SearchCapable = (*Client)(nil)
)

// Option configures a Client.
type Option func(*config)

type config struct {
	baseURL    string
	apiKey     string
	httpClient *http.Client
	maxRetries *int
	model      string
	classes    map[model.ModelClass]string
	// search are the discovery core's settings (WithDiscovery), validated
	// by discovery.New.
	search discovery.Settings
	// bedrock is the WithBedrock configuration, nil for direct OpenAI.
	bedrock *bedrock.Config
}

// WithBaseURL sets the API base URL (default https://api.openai.com/v1/, or
// $OPENAI_BASE_URL). With WithBedrock it overrides the Bedrock endpoint
// instead — the API root, path included, e.g.
// https://bedrock-mantle.us-east-1.api.aws/openai/v1 or a local test
// server's URL followed by /openai/v1 — like bedrock.Config.BaseURL, which
// must then be empty or the same.
func WithBaseURL(u string) Option { return func(c *config) { c.baseURL = u } }

// WithAPIKey sets the API key (default $OPENAI_API_KEY). It is an OpenAI
// key, which Bedrock does not accept: with WithBedrock, New refuses it (a
// Bedrock API key is bedrock.Config.APIKey).
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithHTTPClient sets the HTTP client requests go through.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithMaxRetries sets how many times the SDK retries a failed request
// (connection errors, 408, 409, 429 and 5xx); the SDK default is 2.
func WithMaxRetries(n int) Option { return func(c *config) { c.maxRetries = &n } }

// WithModel sets the model id used when a request names neither a model nor
// a class the client maps.
func WithModel(id string) Option { return func(c *config) { c.model = id } }

// WithClassModel maps a model class to a model id; a request without
// Model uses the id of its Class (model.ModelClassDefault when empty),
// then the WithModel id. Give it once per class.
func WithClassModel(class model.ModelClass, id string) Option {
	return func(c *config) {
		if c.classes == nil {
			c.classes = make(map[model.ModelClass]string)
		}
		c.classes[class] = id
	}
}

// WithDiscovery sets how the client-executed tool_search ranks
// (discovery.Settings: the limit of tools one search loads and the
// weak-hit cut; the zero value is the defaults). Every adapter that
// searches takes the same value through an option of the same name.
func WithDiscovery(s discovery.Settings) Option { return func(c *config) { c.search = s } }

// WithBedrock sends the Responses requests to Amazon Bedrock's
// OpenAI-compatible endpoint through the SDK's bedrock package
// (github.com/openai/openai-go/v3/bedrock), configured by cfg: the endpoint
// family (bedrock.EndpointMantle, the default, at
// https://bedrock-mantle.<region>.api.aws/openai/v1, or
// bedrock.EndpointRuntime), the region and the authentication. The zero
// Config signs every request with AWS Signature Version 4 using the AWS
// default credential chain and region (environment, shared config and
// credentials files, SSO, web identity, instance or container role), so
// neither the region nor a credential needs to be in code; AWSProfile,
// AWSCredentialsProvider or static keys select other AWS credentials, and
// APIKey or BedrockTokenProvider a Bedrock API key (a bearer token, also
// read from $AWS_BEARER_TOKEN_BEDROCK). bedrock.Config documents the
// precedence.
//
// New resolves the configuration and the credentials once, so a missing
// region or credential fails New with the SDK's error naming what to set;
// AWS credentials are refreshed as they expire and every attempt, retries
// included, is signed anew. The OpenAI environment ($OPENAI_API_KEY,
// $OPENAI_BASE_URL) is ignored. WithBaseURL overrides the endpoint (see
// there); WithAPIKey cannot be combined with it; WithHTTPClient,
// WithMaxRetries and the other options work as without it, except that
// redirects are not followed (a redirected request would leave the signed
// origin).
func WithBedrock(cfg bedrock.Config) Option {
	return func(c *config) { c.bedrock = &cfg }
}

// New returns a Client. Options left unset fall back to the SDK's defaults,
// which read $OPENAI_API_KEY and $OPENAI_BASE_URL.
func New(opts ...Option) (*Client, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	var ro []option.RequestOption
	if cfg.baseURL != "" && cfg.bedrock == nil {
		ro = append(ro, option.WithBaseURL(cfg.baseURL))
	}
	if cfg.apiKey != "" && cfg.bedrock == nil {
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
	engine, err := discovery.New(cfg.search)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	sc, err := newSDKClient(cfg, ro)
	if err != nil {
		return nil, err
	}
	return &Client{responses: sc.Responses, model: cfg.model, classes: cfg.classes, search: engine, bedrock: cfg.bedrock != nil}, nil
}

// newSDKClient builds the SDK client: direct, or through the SDK's bedrock
// package, which owns Bedrock's endpoint and authentication and so takes
// the base URL in its Config rather than as option.WithBaseURL (which it
// refuses).
func newSDKClient(cfg config, ro []option.RequestOption) (sdk.Client, error) {
	if cfg.bedrock == nil {
		return sdk.NewClient(ro...), nil
	}
	bc := *cfg.bedrock
	if cfg.apiKey != "" {
		return sdk.Client{}, errors.New("openai: WithAPIKey sets an OpenAI API key, which Bedrock does not accept: remove it, and give a Bedrock API key as bedrock.Config.APIKey (or $AWS_BEARER_TOKEN_BEDROCK), or leave both unset to sign with AWS credentials")
	}
	if cfg.baseURL != "" {
		if bc.BaseURL != "" && bc.BaseURL != cfg.baseURL {
			return sdk.Client{}, fmt.Errorf("openai: WithBaseURL %q and bedrock.Config.BaseURL %q name different Bedrock endpoints: set only one", cfg.baseURL, bc.BaseURL)
		}
		bc.BaseURL = cfg.baseURL
	}
	sc, err := bedrock.NewClient(context.Background(), bc, ro...)
	if err != nil {
		return sdk.Client{}, fmt.Errorf("openai: WithBedrock: %w", err)
	}
	return sc, nil
}

// modelID resolves the model id of req (model.ResolveModel).
func (c *Client) modelID(req *model.Request) (string, error) {
	id, err := model.ResolveModel(req, c.classes, c.model)
	if err != nil {
		return "", fmt.Errorf("openai: %w", err)
	}
	return id, nil
}

// Complete implements model.Client: it runs the invocation's search rounds
// and returns the model's answer with its ordinary tool calls.
func (c *Client) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	inv, err := c.begin(req)
	if err != nil {
		return nil, err
	}
	resp, err := inv.run(ctx)
	if err != nil {
		return nil, err
	}
	return inv.finish(resp), nil
}

// begin validates req and prepares its invocation, for Complete and
// Stream: a request refused here fails before anything is sent.
func (c *Client) begin(req *model.Request) (*invocation, error) {
	if req == nil {
		return nil, errors.New("openai: nil request")
	}
	return c.newInvocation(req)
}

// finish completes the response of a run with what the request asked for
// and the provider did not answer.
func (inv *invocation) finish(resp *model.Response) *model.Response {
	// A forced deferred tool was sent eagerly: record it so the runtime
	// admits the call.
	model.RecordForcedTool(inv.req, resp)
	resp.IgnoredCheckpoints = ignoredCheckpoints(inv.req)
	return resp
}

// SupportsSearch implements model.SearchCapable: the Responses API
// searches natively (client-executed tool_search), so native mode is
// supported; portable mode needs the client wrapped with portable.Wrap. A
// SearchSettings.ToolName that is not a valid function name is refused
// too.
func (c *Client) SupportsSearch(s model.SearchSettings) error {
	if err := s.CheckToolName(); err != nil {
		return fmt.Errorf("openai: %w", err)
	}
	if err := model.NativeSearch(s); err != nil {
		return fmt.Errorf("openai: %w", err)
	}
	return nil
}
