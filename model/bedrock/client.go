package bedrock

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/quiver-go/quiver/model"
)

// Client is a model.Client for Bedrock's Converse API. It has no tool
// search: SupportsSearch refuses deferred tools (see the package doc for
// the fixes). It is safe for concurrent use.
type Client struct {
	cfg config
	api *bedrockruntime.Client
}

// New returns a client. Without WithAWSConfig it loads the AWS default
// chain (config.LoadDefaultConfig); either way the configuration must name
// a region.
func New(opts ...Option) (*Client, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	var awsCfg aws.Config
	if cfg.awsConfig != nil {
		awsCfg = *cfg.awsConfig
	} else {
		awsCfg, err = awsconfig.LoadDefaultConfig(context.Background())
		if err != nil {
			return nil, fmt.Errorf("bedrock: load the AWS default configuration (environment, shared config and credentials files): %w", err)
		}
	}
	if awsCfg.Region == "" {
		return nil, errors.New("bedrock: no AWS region: set AWS_REGION (or region in ~/.aws/config), or pass WithAWSConfig with Region set")
	}
	api := bedrockruntime.NewFromConfig(awsCfg, func(o *bedrockruntime.Options) {
		if cfg.baseURL != "" {
			o.BaseEndpoint = aws.String(cfg.baseURL)
		}
		if cfg.httpClient != nil {
			o.HTTPClient = cfg.httpClient
		}
		if cfg.maxRetries != nil {
			if *cfg.maxRetries == 0 {
				o.Retryer = aws.NopRetryer{}
			} else {
				o.RetryMaxAttempts = *cfg.maxRetries + 1
			}
		}
		o.HTTPClient = guardBodies(o.HTTPClient)
	})
	return &Client{cfg: cfg, api: api}, nil
}

// SupportsSearch implements model.SearchCapable. Converse has no tool
// search: native mode is refused with model.ErrToolSearchUnsupported,
// naming the fixes; portable mode needs portable.Wrap, as
// model.NativeSearch says.
func (c *Client) SupportsSearch(s model.SearchSettings) error {
	if s.Mode != model.SearchNative {
		if err := model.NativeSearch(s); err != nil {
			return fmt.Errorf("bedrock: %w", err)
		}
		return nil
	}
	return errNoNativeSearch()
}

// errNoNativeSearch is the refusal of native search, with its fixes.
func errNoNativeSearch() error {
	return fmt.Errorf("bedrock: the Converse API has no native tool search: opt into portable search (wrap the client with portable.Wrap and set Search.Mode to model.SearchPortable), or, for Claude, use the model/anthropic adapter on Bedrock's InvokeModel, which runs the hosted tool search: %w", model.ErrToolSearchUnsupported)
}

// Complete implements model.Client with one Converse request. A request
// with deferred tools fails with model.ErrToolSearchUnsupported before any
// HTTP request.
func (c *Client) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	in, err := c.input(req)
	if err != nil {
		return nil, err
	}
	out, err := c.api.Converse(ctx, in)
	if err != nil {
		return nil, wrapSDKError(err)
	}
	resp, err := toResponse(out)
	if err != nil {
		return nil, err
	}
	resp.IgnoredCheckpoints = req.Cache.Requested()
	return resp, nil
}

// input checks that req fits the Converse API and builds its input.
// Nothing here contacts Bedrock.
func (c *Client) input(req *model.Request) (*bedrockruntime.ConverseInput, error) {
	if req == nil {
		return nil, errors.New("bedrock: nil request")
	}
	if model.HasDeferred(req.Tools) {
		// Never fall back to advertising deferred tools eagerly.
		return nil, fmt.Errorf("bedrock: the request defers tools: %w", errNoNativeSearch())
	}
	id, err := c.cfg.modelID(req)
	if err != nil {
		return nil, err
	}
	return buildInput(req, id, c.cfg.temperature)
}

// compile-time checks
var (
	_ model.Client        = (*Client)(nil)
	_ model.SearchCapable = (*Client)(nil)
)
