package anthropic

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// BedrockAnthropicVersion is the "anthropic_version" Amazon Bedrock's
// InvokeModel requires in the body of a Claude Messages request (Bedrock
// user guide, "Anthropic Claude Messages API", Request: "The value must be
// bedrock-2023-05-31"). WithBedrock sends it.
const BedrockAnthropicVersion = "bedrock-2023-05-31"

// bedrockTarget is what WithBedrock or WithBedrockDefaultConfig set: the
// AWS configuration, or why it could not be loaded.
type bedrockTarget struct {
	cfg aws.Config
	err error
}

// WithBedrock makes the Client talk to Claude on Amazon Bedrock: each
// Messages request is sent to InvokeModel (POST /model/{modelId}/invoke on
// https://bedrock-runtime.{cfg.Region}.amazonaws.com) through the SDK's
// bedrock middleware (package github.com/anthropics/anthropic-sdk-go/v2/bedrock),
// which signs it with AWS SigV4 using cfg.Credentials (or sends cfg's
// bearer token, or AWS_BEARER_TOKEN_BEDROCK; see bedrock.WithConfig), moves
// the model id from the body to the path, and moves the anthropic-beta
// header (WithBetas) into the body as "anthropic_beta". The body is
// otherwise the one the direct API receives: the same preparation, tool
// search, defer_loading, input_examples and cache checkpoints. The option
// also sets "anthropic_version" to BedrockAnthropicVersion, which Bedrock
// requires and the SDK's middleware does not send (it copies the SDK's
// first-party version header instead).
//
// Model ids (WithModel, WithClassModel, Request.Model) are Bedrock's:
// foundation model ids ("anthropic.claude-sonnet-4-5-20250929-v1:0"),
// cross-region inference profile ids
// ("us.anthropic.claude-sonnet-4-5-20250929-v1:0") or ARNs, escaped into
// the path by the SDK.
//
// WithBaseURL replaces the regional endpoint (a VPC endpoint, a local test
// server); without it cfg.BaseEndpoint (AWS_ENDPOINT_URL of the default
// chain) does. cfg needs a region and credentials; New fails without them.
// WithAPIKey cannot be combined with it. Keep region and credentials out of
// code: build cfg with config.LoadDefaultConfig, or use
// WithBedrockDefaultConfig.
func WithBedrock(cfg aws.Config) Option {
	return func(s *settings) { s.bedrock = &bedrockTarget{cfg: cfg} }
}

// WithBedrockDefaultConfig is WithBedrock with the AWS configuration that
// config.LoadDefaultConfig(ctx, optFns...) loads from the default chain
// (environment, shared config and credentials files, SSO, the instance
// role, …), when New applies the option. A load failure fails New.
func WithBedrockDefaultConfig(ctx context.Context, optFns ...func(*config.LoadOptions) error) Option {
	return func(s *settings) {
		cfg, err := config.LoadDefaultConfig(ctx, optFns...)
		if err != nil {
			err = fmt.Errorf("anthropic: load the AWS configuration for Bedrock: %w: fix the AWS environment or shared config (AWS_REGION, AWS_PROFILE, credentials), or pass an aws.Config to WithBedrock", err)
		}
		s.bedrock = &bedrockTarget{cfg: cfg, err: err}
	}
}

// validateBedrock checks the Bedrock settings, if any.
func (s *settings) validateBedrock() error {
	b := s.bedrock
	if b == nil {
		return nil
	}
	if b.err != nil {
		return b.err
	}
	if s.apiKey != "" {
		return errors.New("anthropic: WithAPIKey and WithBedrock exclude each other: Bedrock authenticates with AWS credentials (SigV4) or a Bedrock bearer token; drop WithAPIKey")
	}
	if b.cfg.Region == "" {
		return errors.New("anthropic: Bedrock needs an AWS region: set aws.Config.Region, or AWS_REGION or the profile's region for the default chain")
	}
	if b.cfg.Credentials == nil && b.cfg.BearerAuthTokenProvider == nil && os.Getenv("AWS_BEARER_TOKEN_BEDROCK") == "" {
		return errors.New("anthropic: Bedrock needs AWS credentials: set aws.Config.Credentials (config.LoadDefaultConfig does), a bearer token provider, or AWS_BEARER_TOKEN_BEDROCK")
	}
	return nil
}

// bedrockOptions are the SDK options that point the client at Bedrock,
// given after every other option: the SDK's middleware must be the last
// one registered (nearest the wire, so that what it signs is sent
// unchanged), and the endpoint must override the regional one it sets.
func (s *settings) bedrockOptions() []option.RequestOption {
	b := s.bedrock
	ro := []option.RequestOption{bedrock.WithConfig(b.cfg)}
	switch {
	case s.baseURL != "":
		ro = append(ro, option.WithBaseURL(s.baseURL))
	case b.cfg.BaseEndpoint != nil && *b.cfg.BaseEndpoint != "":
		// The SDK's middleware ignores the endpoint override of the AWS
		// configuration; honour it like the AWS SDK's own clients do.
		ro = append(ro, option.WithBaseURL(*b.cfg.BaseEndpoint))
	}
	return ro
}
