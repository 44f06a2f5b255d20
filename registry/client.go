package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	goahttp "goa.design/goa/v3/http"

	genclient "github.com/quiver-go/quiver/registry/gen/http/registry/client"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// Client talks to a registry: the Goa-generated service client
// (registry/gen/registry.Client) with the caller's API key sent on every
// request and JSON numbers kept as written.
type Client struct {
	*gen.Client
	// BaseURL is the registry's address, e.g. http://127.0.0.1:7420.
	BaseURL *url.URL

	transport *genclient.Client
	doer      goahttp.Doer
}

// ClientOption configures NewClient.
type ClientOption func(*clientConfig) error

type clientConfig struct {
	key  string
	http *http.Client
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
// overall timeout (provider streams last as long as their lease).
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
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("registry: URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("registry: URL %q: want http(s)://host[:port][/path], without credentials, query or fragment", baseURL)
	}
	cfg := clientConfig{http: &http.Client{Transport: defaultTransport()}}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	doer := &keyDoer{key: cfg.key, prefix: strings.TrimSuffix(u.Path, "/"), next: cfg.http}
	c := genclient.NewClient(u.Scheme, u.Host, doer, goahttp.RequestEncoder, numberDecoder, false)
	return &Client{
		Client: gen.NewClient(c.Register(), c.Renew(), c.Drain(), c.Release(), c.Unregister(), c.Calls(), c.PostResult(),
			c.ListToolsets(), c.GetToolset(), c.Search(), c.ResolveToolset(), c.ResolveRegistry(), c.Changes(),
			c.CallResolvedTool(), c.GetCall()),
		BaseURL:   u,
		transport: c,
		doer:      doer,
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

// keyDoer adds the API key to every request, and the base URL's path
// before the API's routes.
type keyDoer struct {
	key    string
	prefix string
	next   goahttp.Doer
}

func (d *keyDoer) Do(r *http.Request) (*http.Response, error) {
	if d.prefix != "" {
		r.URL.Path = d.prefix + r.URL.Path
		r.URL.RawPath = ""
	}
	if d.key != "" && r.Header.Get("Authorization") == "" {
		r.Header.Set("Authorization", "Bearer "+d.key)
	}
	return d.next.Do(r)
}

// numberDecoder decodes responses keeping numbers as written, so a tool's
// result reaches the caller digit for digit.
func numberDecoder(resp *http.Response) goahttp.Decoder {
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	return dec
}
