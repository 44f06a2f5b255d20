package anthropic

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// SearchVariant selects how a Client lets the model find deferred tools.
type SearchVariant int

// The search variants.
const (
	// SearchBM25 sends the hosted tool search tool
	// {"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}:
	// the model writes natural-language queries and Anthropic ranks the
	// deferred tools with BM25. It is the default.
	SearchBM25 SearchVariant = iota
	// SearchRegex sends the hosted tool search tool
	// {"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}:
	// the model writes Python re.search() patterns.
	SearchRegex
	// SearchClient sends our own search tool (a regular custom tool, named
	// by the request's SearchSettings.ToolName, else by
	// WithClientSearchToolName, else DefaultClientSearchToolName) that the
	// Client answers itself through the discovery core (package discovery):
	// tool_reference blocks for the tools found, the core's JSON answer
	// otherwise. Its searches count against the per-turn budget of the
	// request's SearchSettings.
	SearchClient
)

// String returns the variant's name.
func (v SearchVariant) String() string {
	switch v {
	case SearchBM25:
		return "bm25"
	case SearchRegex:
		return "regex"
	case SearchClient:
		return "client"
	}
	return fmt.Sprintf("SearchVariant(%d)", int(v))
}

// DefaultClientSearchToolName is the wire name of the client-side search
// tool (SearchClient).
const DefaultClientSearchToolName = "tool_search"

// DefaultSearchLimit is how many tools one client-side search references
// at most (discovery.DefaultSearchLimit).
const DefaultSearchLimit = discovery.DefaultSearchLimit

// wireNamePattern is the tool name pattern of the Messages API ("Define
// tools": name must match ^[a-zA-Z0-9_-]{1,64}$), the wire names
// tools.ValidWireName accepts.
const wireNamePattern = `^[a-zA-Z0-9_-]{1,64}$`

// Option configures a Client.
type Option func(*settings)

// settings are the options of a Client.
type settings struct {
	baseURL    string
	apiKey     string
	httpClient *http.Client
	model      string
	classes    map[model.ModelClass]string
	maxRetries int
	retriesSet bool
	timeout    time.Duration
	betas      []string
	search     SearchVariant
	searchName string
	// discovery are the discovery core's settings of the client-side
	// search (WithDiscovery), validated by discovery.New.
	discovery  discovery.Settings
	sdkOptions []option.RequestOption
	// bedrock is set by WithBedrock and WithBedrockDefaultConfig.
	bedrock *bedrockTarget
}

// WithBaseURL sends requests to url instead of https://api.anthropic.com/
// (with WithBedrock: instead of Bedrock's regional endpoint).
func WithBaseURL(url string) Option { return func(s *settings) { s.baseURL = url } }

// WithAPIKey authenticates with key (SDK v2.15.0 sends it as
// "Authorization: Bearer <key>", option.WithAPIKey). Without it the
// SDK's default credential chain applies (ANTHROPIC_API_KEY, …).
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = key } }

// WithHTTPClient sends requests through hc.
func WithHTTPClient(hc *http.Client) Option { return func(s *settings) { s.httpClient = hc } }

// WithModel sets the model id used when a request names neither a model nor
// a class that WithClassModel maps.
func WithModel(id string) Option { return func(s *settings) { s.model = id } }

// WithClassModel maps a model class to a model id; a request naming no model
// uses the id of its class (model.ModelClassDefault when it names none).
func WithClassModel(class model.ModelClass, id string) Option {
	return func(s *settings) {
		if s.classes == nil {
			s.classes = make(map[model.ModelClass]string)
		}
		s.classes[class] = id
	}
}

// WithMaxRetries sets how many times the SDK retries a failed request
// (connection errors, 408, 409, 429 and 5xx); the SDK's default is 2.
func WithMaxRetries(n int) Option {
	return func(s *settings) { s.maxRetries, s.retriesSet = n, true }
}

// WithRequestTimeout bounds each HTTP request. The SDK refuses a
// non-streaming request whose max_tokens suggests it may take longer than
// ten minutes unless a timeout is set; this sets one.
func WithRequestTimeout(d time.Duration) Option { return func(s *settings) { s.timeout = d } }

// WithBetas sends the anthropic-beta header with the given beta names on
// every request (with WithBedrock, the body's "anthropic_beta" array,
// where Bedrock takes them; the hosted tool search there is gated behind
// "tool-search-tool-2025-10-19"). None is needed for tool search, defer_loading,
// tool_reference or input_examples: in SDK v2.15.0 they are fields of the
// GA Messages API (message.go: ToolParam.DeferLoading, ToolParam.InputExamples,
// ToolSearchToolBm25_20251119Param, ToolSearchToolRegex20251119Param) and
// Anthropic's tool search documentation lists the feature as stable. Use it
// for platforms that still gate them behind the launch beta
// ("advanced-tool-use-2025-11-20") or for other betas.
func WithBetas(names ...string) Option {
	return func(s *settings) { s.betas = append(s.betas, names...) }
}

// WithSearch selects how deferred tools are searched (SearchBM25 when not
// given).
func WithSearch(v SearchVariant) Option { return func(s *settings) { s.search = v } }

// WithClientSearchToolName names the client-side search tool (SearchClient)
// when the request's SearchSettings.ToolName does not.
func WithClientSearchToolName(name string) Option {
	return func(s *settings) { s.searchName = name }
}

// WithDiscovery sets how a client-side search (SearchClient) ranks
// (discovery.Settings: the limit of tools one search references and the
// weak-hit cut; the zero value is the defaults). The hosted variants rank
// at the provider and ignore it. Every adapter that searches takes the
// same value through an option of the same name.
func WithDiscovery(d discovery.Settings) Option { return func(s *settings) { s.discovery = d } }

// clientSearchName is the client-side search tool's name for a request
// with search settings ss: SearchSettings.ToolName when set, else the
// client's (WithClientSearchToolName, DefaultClientSearchToolName).
func (s *settings) clientSearchName(ss model.SearchSettings) string {
	if ss.ToolName != "" {
		return ss.ToolName
	}
	return s.searchName
}

// WithSDKOptions appends request options of the official SDK (headers,
// middleware, …) after the ones the other options produce — before the
// Bedrock ones under WithBedrock, so that middleware sees the request as
// the direct API would receive it and the SDK's Bedrock middleware signs
// what is sent.
func WithSDKOptions(opts ...option.RequestOption) Option {
	return func(s *settings) { s.sdkOptions = append(s.sdkOptions, opts...) }
}

// validate checks the settings New was given.
func (s *settings) validate() error {
	switch s.search {
	case SearchBM25, SearchRegex, SearchClient:
	default:
		return fmt.Errorf("anthropic: unknown search variant %v: use SearchBM25, SearchRegex or SearchClient", s.search)
	}
	if !tools.ValidWireName(s.searchName) {
		return fmt.Errorf("anthropic: client search tool name %q must match %s", s.searchName, wireNamePattern)
	}
	if s.retriesSet && s.maxRetries < 0 {
		return fmt.Errorf("anthropic: max retries %d must not be negative", s.maxRetries)
	}
	if s.timeout < 0 {
		return fmt.Errorf("anthropic: request timeout %s must not be negative", s.timeout)
	}
	for class, id := range s.classes {
		if id == "" {
			return fmt.Errorf("anthropic: model class %q maps to an empty model id", class)
		}
	}
	return s.validateBedrock()
}

// requestOptions returns the SDK options the settings stand for.
func (s *settings) requestOptions() []option.RequestOption {
	var ro []option.RequestOption
	if s.baseURL != "" && s.bedrock == nil {
		ro = append(ro, option.WithBaseURL(s.baseURL))
	}
	if s.apiKey != "" {
		ro = append(ro, option.WithAPIKey(s.apiKey))
	}
	if s.httpClient != nil {
		ro = append(ro, option.WithHTTPClient(s.httpClient))
	}
	if s.retriesSet {
		ro = append(ro, option.WithMaxRetries(s.maxRetries))
	}
	if s.timeout > 0 {
		ro = append(ro, option.WithRequestTimeout(s.timeout))
	}
	if len(s.betas) > 0 {
		// One comma-separated anthropic-beta header, as the API reference
		// documents it ("Optional header to specify the beta version(s)").
		ro = append(ro, option.WithHeader("anthropic-beta", strings.Join(s.betas, ",")))
	}
	if s.bedrock != nil {
		// The SDK's bedrock middleware moves this header into the body as
		// "anthropic_version" (and anthropic-beta as "anthropic_beta").
		ro = append(ro, option.WithHeader("anthropic-version", BedrockAnthropicVersion))
	}
	ro = append(ro, s.sdkOptions...)
	if s.bedrock != nil {
		ro = append(ro, s.bedrockOptions()...)
	}
	return ro
}
