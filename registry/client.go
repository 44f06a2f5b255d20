package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	goahttp "goa.design/goa/v3/http"

	genclient "github.com/quiver-go/quiver/registry/gen/http/registry/client"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// Client talks to a registry: the Goa-generated service client
// (registry/gen/registry.Client) with the caller's API key sent on every
// request and JSON numbers kept as written, plus [Client.Resolve], the
// consumer's read, and [Client.Calls], the provider's stream. Requests other
// than the provider's stream are bounded by [WithTimeout] and retried under
// [WithRetry].
type Client struct {
	*gen.Client
	// BaseURL is the registry's address, e.g. http://127.0.0.1:7420.
	BaseURL *url.URL

	transport *genclient.Client
	// requests sends every request but the provider's stream: with the
	// timeout and the retries the options set.
	requests goahttp.Doer
	// stream sends the provider's stream, which lasts as long as its lease.
	stream   goahttp.Doer
	consumer ConsumerSettings
}

// ConsumerSettings are the settings of a registry's consumer: the client
// stores them and applies the federation globs to [Client.Resolve]; a
// consumer (the runtime) reads them with [Client.Consumer] and applies the
// rest.
type ConsumerSettings struct {
	// SyncInterval is how often a consumer refreshes its resolution in the
	// background, so that a read finds it current; zero: no background
	// refresh ([WithSyncInterval]).
	SyncInterval time.Duration
	// CacheTTL is how long after its last successful read a consumer may
	// keep serving its last resolution, only while the registry is
	// unreachable; zero: never ([WithCacheTTL]).
	CacheTTL time.Duration
	// Include and [ConsumerSettings.Exclude] are the federation's glob patterns
	// ([path.Match] syntax) on toolset names: a toolset is imported when it
	// matches an Include pattern (every toolset when there is none) and no
	// Exclude pattern ([WithFederation]).
	Include, Exclude []string
}

// Consumer returns the client's consumer settings.
func (c *Client) Consumer() ConsumerSettings {
	s := c.consumer
	s.Include, s.Exclude = slices.Clone(s.Include), slices.Clone(s.Exclude)
	return s
}

// ClientOption configures [NewClient].
type ClientOption func(*clientConfig) error

type clientConfig struct {
	key        string
	http       *http.Client
	timeout    time.Duration
	retries    int
	backoff    time.Duration
	apiVersion string
	consumer   ConsumerSettings
	baseURL    string
}

// WithBaseURL reaches the registry at baseURL instead of the address
// [NewClient] was given: what a generated client (whose address is the
// design's URL) needs to reach another deployment — staging, a test, a
// registry started in the same process.
func WithBaseURL(baseURL string) ClientOption {
	return func(c *clientConfig) error {
		if baseURL == "" {
			return errors.New("registry: WithBaseURL(\"\"): give the registry's address")
		}
		c.baseURL = baseURL
		return nil
	}
}

// WithAPIKey sends key on every request (Authorization: Bearer <key>).
func WithAPIKey(key string) ClientOption {
	return func(c *clientConfig) error {
		if strings.ContainsAny(key, " \t\r\n") {
			return errors.New("registry: an API key has no spaces")
		}
		c.key = key
		return nil
	}
}

// WithHTTPClient sends requests through hc instead of a client with no
// overall timeout (provider streams last as long as their lease). Leave
// hc.Timeout zero and bound requests with [WithTimeout], which spares the
// streams.
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *clientConfig) error {
		if hc == nil {
			return errors.New("registry: WithHTTPClient(nil)")
		}
		c.http = hc
		return nil
	}
}

// NewClient returns a client of the registry at baseURL: http or https,
// a host, and optionally the path under which a proxy serves the registry
// (the API's own routes, /v1/..., are appended to it).
func NewClient(baseURL string, opts ...ClientOption) (*Client, error) {
	cfg := clientConfig{http: &http.Client{Transport: defaultTransport()}, apiVersion: DefaultAPIVersion}
	for _, o := range opts {
		if o == nil {
			return nil, errors.New("registry: NewClient: a nil ClientOption")
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.baseURL != "" {
		baseURL = cfg.baseURL
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("registry: URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("registry: URL %q: want http(s)://host[:port][/path], without credentials, query or fragment", baseURL)
	}
	stream := &keyDoer{key: cfg.key, prefix: strings.TrimSuffix(u.Path, "/"), version: cfg.apiVersion, next: cfg.http}
	var requests goahttp.Doer = stream
	if cfg.timeout > 0 {
		requests = &timeoutDoer{timeout: cfg.timeout, next: requests}
	}
	if cfg.retries > 0 {
		requests = &retryDoer{retries: cfg.retries, backoff: cfg.backoff, next: requests}
	}
	c := genclient.NewClient(u.Scheme, u.Host, requests, goahttp.RequestEncoder, numberDecoder, false)
	return &Client{
		Client: gen.NewClient(c.Register(), c.Renew(), c.Drain(), c.Release(), c.Unregister(), c.Calls(), c.PostResult(),
			c.ListToolsets(), c.GetToolset(), c.Search(), c.ResolveToolset(), c.ResolveRegistry(), c.Changes(),
			c.CallResolvedTool(), c.GetCall()),
		BaseURL:   u,
		transport: c,
		requests:  requests,
		stream:    stream,
		consumer:  cfg.consumer,
	}, nil
}

// defaultTransport keeps enough idle connections for a busy consumer or
// provider (net/http keeps 2 per host by default).
func defaultTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 256
	t.IdleConnTimeout = 90 * time.Second
	return t
}

// numberDecoder decodes responses keeping numbers as written, so a tool's
// result reaches the caller digit for digit.
func numberDecoder(resp *http.Response) goahttp.Decoder {
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	return dec
}
