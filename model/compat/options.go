package compat

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
)

// TokenLimitField names the request field that carries Request.MaxTokens.
type TokenLimitField string

// The token limit fields.
const (
	// FieldMaxTokens sends the cap as "max_tokens", the field every
	// OpenAI-compatible server knows. It is the default: Ollama's
	// compatibility layer lists max_tokens and not max_completion_tokens
	// among its supported request fields
	// (https://docs.ollama.com/api/openai-compatibility), llama-server
	// ignored max_completion_tokens until 2026 (ggml-org/llama.cpp issue
	// #13700, fixed by PR #19831) and llama-cpp-python still ignores it
	// (abetlen/llama-cpp-python issue #1907). A cap the server ignores is
	// worse than a deprecated field name.
	FieldMaxTokens TokenLimitField = "max_tokens"
	// FieldMaxCompletionTokens sends the cap as "max_completion_tokens", which
	// OpenAI's own API requires for its reasoning models (the SDK marks
	// max_tokens deprecated: openai-go/v3 ChatCompletionNewParams.MaxTokens).
	// Choose it for servers known to honour it (vLLM, recent llama-server,
	// api.openai.com).
	FieldMaxCompletionTokens TokenLimitField = "max_completion_tokens"
)

// Option configures a Client.
type Option func(*config)

// config is the validated configuration of a Client.
type config struct {
	baseURL     string
	apiKey      string
	httpClient  *http.Client
	model       string
	classModels map[model.ModelClass]string
	limitField  TokenLimitField
	maxRetries  int
	// search are the ranking settings of the portable search
	// (WithDiscovery), validated when New wraps the client.
	search discovery.Settings
	// structuredOutput is set by WithStructuredOutput (structured.go).
	structuredOutput bool
}

// WithBaseURL sets the API root that "chat/completions" is appended to,
// e.g. http://localhost:8000/v1 (vLLM), http://localhost:8080/v1
// (llama-server) or http://localhost:11434/v1 (Ollama). Required.
func WithBaseURL(u string) Option { return func(c *config) { c.baseURL = u } }

// WithAPIKey sets the bearer token. Optional: local servers usually need
// none, and without a key no Authorization header is sent.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithHTTPClient sets the HTTP client (timeouts, proxies, transports).
// The default is http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithModel sets the model id used when a request names neither a model
// nor a class that WithClassModel maps.
func WithModel(id string) Option { return func(c *config) { c.model = id } }

// WithClassModel maps a model class to a model id of the server.
func WithClassModel(class model.ModelClass, id string) Option {
	return func(c *config) {
		if c.classModels == nil {
			c.classModels = map[model.ModelClass]string{}
		}
		c.classModels[class] = id
	}
}

// WithTokenLimitField chooses the field that carries Request.MaxTokens
// (FieldMaxTokens by default; see TokenLimitField).
func WithTokenLimitField(f TokenLimitField) Option { return func(c *config) { c.limitField = f } }

// WithMaxRetries sets how many times the SDK retries a request that failed
// with a connection error or a 408, 409, 429 or 5xx status (the SDK's
// default is 2).
func WithMaxRetries(n int) Option { return func(c *config) { c.maxRetries = n } }

// WithDiscovery sets how portable searches rank (discovery.Settings: the
// limit of tools per search and the weak-hit cut; the zero value is the
// defaults). Every adapter that searches takes the same value through an
// option of the same name.
func WithDiscovery(s discovery.Settings) Option { return func(c *config) { c.search = s } }

// defaultMaxRetries is the SDK's own default (requestconfig.NewRequestConfig).
const defaultMaxRetries = 2

// newConfig applies opts over the defaults and validates the result.
func newConfig(opts []Option) (config, error) {
	c := config{limitField: FieldMaxTokens, maxRetries: defaultMaxRetries}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	var errs []error
	if c.baseURL == "" {
		errs = append(errs, errors.New("a base URL is required: WithBaseURL(\"http://localhost:8000/v1\")"))
	} else if u, err := url.Parse(c.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("base URL %q is not an absolute http(s) URL", c.baseURL))
	}
	switch c.limitField {
	case FieldMaxTokens, FieldMaxCompletionTokens:
	default:
		errs = append(errs, fmt.Errorf("token limit field %q is neither %q nor %q", c.limitField, FieldMaxTokens, FieldMaxCompletionTokens))
	}
	if c.maxRetries < 0 {
		errs = append(errs, fmt.Errorf("max retries is %d, want 0 or more", c.maxRetries))
	}
	for class, id := range c.classModels {
		if id == "" {
			errs = append(errs, fmt.Errorf("model class %q is mapped to an empty model id", class))
		}
	}
	if c.httpClient == nil {
		c.httpClient = http.DefaultClient
	}
	if len(errs) > 0 {
		return config{}, fmt.Errorf("compat: %w", errors.Join(errs...))
	}
	return c, nil
}

// modelID resolves the model id of req (model.ResolveModel).
func (c *config) modelID(req *model.Request) (string, error) {
	id, err := model.ResolveModel(req, c.classModels, c.model)
	if err != nil {
		return "", fmt.Errorf("compat: %w", err)
	}
	return id, nil
}
