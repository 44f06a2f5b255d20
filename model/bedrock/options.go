package bedrock

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/quiver-go/quiver/model"
)

// Option configures a Client.
type Option func(*config)

// config is the validated configuration of a Client.
type config struct {
	// awsConfig is WithAWSConfig's value; nil loads the default chain.
	awsConfig   *aws.Config
	baseURL     string
	httpClient  *http.Client
	model       string
	classModels map[model.ModelClass]string
	temperature *float32
	// maxRetries is WithMaxRetries' value; nil keeps the AWS
	// configuration's retryer.
	maxRetries *int
}

// WithAWSConfig sets the AWS configuration (region, credentials, retryer,
// HTTP client) instead of loading the default chain
// (config.LoadDefaultConfig). The region must be set.
func WithAWSConfig(cfg aws.Config) Option {
	return func(c *config) { c.awsConfig = &cfg }
}

// WithBaseURL replaces the Bedrock runtime endpoint
// (https://bedrock-runtime.{region}.amazonaws.com by default), for a VPC
// endpoint or a local test server. Requests are still signed for the
// configured region.
func WithBaseURL(u string) Option { return func(c *config) { c.baseURL = u } }

// WithHTTPClient sets the HTTP client (timeouts, proxies, transports) over
// the AWS configuration's.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithModel sets the Bedrock model id (or inference profile id or ARN)
// used when a request names neither a model nor a class that
// WithClassModel maps, e.g. "amazon.nova-pro-v1:0".
func WithModel(id string) Option { return func(c *config) { c.model = id } }

// WithClassModel maps a model class to a Bedrock model id.
func WithClassModel(class model.ModelClass, id string) Option {
	return func(c *config) {
		if c.classModels == nil {
			c.classModels = map[model.ModelClass]string{}
		}
		c.classModels[class] = id
	}
}

// WithTemperature sets inferenceConfig.temperature on every request
// (model.Request carries none); unset leaves the model's default.
func WithTemperature(t float32) Option { return func(c *config) { c.temperature = &t } }

// WithMaxRetries sets how many times the SDK retries a request that failed
// with a retryable error (throttling, 5xx, connection errors); 0 disables
// retries. Unset keeps the AWS configuration's retryer (the SDK's standard
// one makes 3 attempts).
func WithMaxRetries(n int) Option { return func(c *config) { c.maxRetries = &n } }

// newConfig applies opts over the defaults and validates the result.
func newConfig(opts []Option) (config, error) {
	var c config
	var errs []error
	for i, o := range opts {
		if o == nil {
			errs = append(errs, fmt.Errorf("option %d is nil: drop it", i+1))
			continue
		}
		o(&c)
	}
	if c.baseURL != "" {
		if u, err := url.Parse(c.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("base URL %q is not an absolute http(s) URL: use e.g. WithBaseURL(\"https://bedrock-runtime.us-east-1.amazonaws.com\")", c.baseURL))
		}
	}
	if c.maxRetries != nil && *c.maxRetries < 0 {
		errs = append(errs, fmt.Errorf("max retries is %d, want 0 or more", *c.maxRetries))
	}
	if c.temperature != nil && (math.IsNaN(float64(*c.temperature)) || *c.temperature < 0) {
		errs = append(errs, fmt.Errorf("temperature is %v, want 0 or more", *c.temperature))
	}
	for class, id := range c.classModels {
		if id == "" {
			errs = append(errs, fmt.Errorf("model class %q is mapped to an empty model id", class))
		}
	}
	if len(errs) > 0 {
		return config{}, fmt.Errorf("bedrock: %w", errors.Join(errs...))
	}
	return c, nil
}

// modelID resolves the model id of req (model.ResolveModel).
func (c *config) modelID(req *model.Request) (string, error) {
	id, err := model.ResolveModel(req, c.classModels, c.model)
	if err != nil {
		return "", fmt.Errorf("bedrock: %w", err)
	}
	return id, nil
}
