package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	oaibedrock "github.com/openai/openai-go/v3/bedrock"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/bedrock"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/model/portable"
)

// The Bedrock providers: Claude through InvokeModel (the Anthropic adapter,
// hosted tool search), OpenAI Responses on Bedrock (client-executed
// search), and Converse for every other model (portable search).
const (
	providerBedrock         = "bedrock"
	providerBedrockOpenAI   = "bedrock-openai"
	providerBedrockConverse = "bedrock-converse"
)

// isBedrock reports whether provider is one of the Bedrock ones.
func isBedrock(provider string) bool {
	switch provider {
	case providerBedrock, providerBedrockOpenAI, providerBedrockConverse:
		return true
	}
	return false
}

// awsConfig loads the configuration Bedrock requests are signed with, from
// the AWS default chain (environment, shared files, SSO, the instance's
// role): never from code. It fails, before anything is sent, without a
// region or without credentials.
func awsConfig(ctx context.Context, provider string) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("-provider %s: the AWS configuration does not load: %w: fix AWS_PROFILE or the shared config files", provider, err)
	}
	if cfg.Region == "" {
		return aws.Config{}, fmt.Errorf("-provider %s needs an AWS region: set AWS_REGION (e.g. us-east-1) or give your profile one; the calls are billable", provider)
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return aws.Config{}, fmt.Errorf("-provider %s needs AWS credentials, and the default chain found none (%v): set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", provider, err)
	}
	return cfg, nil
}

// newBedrockModel builds the client of a Bedrock provider.
func newBedrockModel(cfg providerConfig) (chosenModel, error) {
	ctx := context.Background()
	awsCfg, err := awsConfig(ctx, cfg.provider)
	if err != nil {
		return chosenModel{}, err
	}
	switch cfg.provider {
	case providerBedrock:
		opts := []anthropic.Option{anthropic.WithBedrock(awsCfg), anthropic.WithModel(cfg.model)}
		if cfg.baseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(cfg.baseURL))
		}
		c, err := anthropic.New(opts...)
		if err != nil {
			return chosenModel{}, err
		}
		return chosenModel{client: c, name: "bedrock " + cfg.model + " (Claude through InvokeModel, billable)",
			how: "native — get_weather sent with defer_loading, found by the hosted BM25 search"}, nil
	case providerBedrockOpenAI:
		opts := []openai.Option{openai.WithBedrock(oaibedrock.Config{AWSRegion: awsCfg.Region, AWSCredentialsProvider: awsCfg.Credentials}), openai.WithModel(cfg.model)}
		if cfg.baseURL != "" {
			opts = append(opts, openai.WithBaseURL(cfg.baseURL))
		}
		c, err := openai.New(opts...)
		if err != nil {
			return chosenModel{}, err
		}
		return chosenModel{client: c, name: "bedrock-openai " + cfg.model + " (Responses on Bedrock, billable)",
			how: "native — a client-executed tool_search that the adapter answers with Quiver's ranking"}, nil
	case providerBedrockConverse:
		opts := []bedrock.Option{bedrock.WithAWSConfig(awsCfg), bedrock.WithModel(cfg.model)}
		if cfg.baseURL != "" {
			opts = append(opts, bedrock.WithBaseURL(cfg.baseURL))
		}
		c, err := bedrock.New(opts...)
		if err != nil {
			return chosenModel{}, err
		}
		// Converse has no tool search: the agent opts into the portable one.
		return chosenModel{client: portable.Wrap(c), search: model.SearchSettings{Mode: model.SearchPortable},
			name: "bedrock-converse " + cfg.model + " (Converse, billable)",
			how:  "portable — the model calls search_tools like any function; Quiver answers it"}, nil
	}
	return chosenModel{}, errors.New("not a Bedrock provider: " + cfg.provider)
}
