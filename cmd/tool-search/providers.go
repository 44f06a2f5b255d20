package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/compat"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
)

// The environment variables the keys are read from. compat has its own:
// a key meant for api.openai.com must never reach a local server.
const (
	openAIKeyVar    = "OPENAI_API_KEY"
	anthropicKeyVar = "ANTHROPIC_API_KEY"
	compatKeyVar    = "COMPAT_API_KEY"
)

// providerConfig is what the flags say about the model.
type providerConfig struct {
	provider string // "", "openai", "anthropic", "compat" or a Bedrock one (bedrock.go)
	model    string
	baseURL  string
}

// chosenModel is the client a run goes through and the search its agent
// opts into.
type chosenModel struct {
	client model.Client
	search model.SearchSettings
	// offline is true for the scripted model: no key, no network.
	offline bool
	// name and how describe the model and its search for the header.
	name, how string
}

// newModel builds the client cfg names, reading its key through getenv.
// Without a provider it is the offline scripted model and touches neither
// the environment nor the network. Its errors say which flag or variable
// to set.
func newModel(cfg providerConfig, getenv func(string) string) (chosenModel, error) {
	if cfg.provider == "" {
		if cfg.model != "" || cfg.baseURL != "" {
			return chosenModel{}, errors.New("-model and -base-url need -provider openai, anthropic or compat; without -provider the program runs offline on a scripted model")
		}
		return chosenModel{
			client:  portable.Wrap(offlineScript()),
			search:  model.SearchSettings{Mode: model.SearchPortable},
			offline: true,
			name:    "offline — a scripted model (model/scripted): no key, no network",
			how:     "portable — the model calls search_tools like any function; Quiver answers it",
		}, nil
	}
	switch {
	case cfg.provider == "openai", cfg.provider == "anthropic", cfg.provider == "compat", isBedrock(cfg.provider):
	default:
		return chosenModel{}, fmt.Errorf("unknown -provider %q: use openai, anthropic, compat, bedrock, bedrock-openai or bedrock-converse, or no -provider to run offline", cfg.provider)
	}
	if cfg.model == "" {
		return chosenModel{}, fmt.Errorf("-provider %s needs -model, the provider's model id (e.g. -model %s)", cfg.provider, exampleModel(cfg.provider))
	}
	if isBedrock(cfg.provider) {
		return newBedrockModel(cfg)
	}
	switch cfg.provider {
	case "openai":
		key, err := requireKey(getenv, openAIKeyVar, cfg.provider)
		if err != nil {
			return chosenModel{}, err
		}
		opts := []openai.Option{openai.WithAPIKey(key), openai.WithModel(cfg.model)}
		if cfg.baseURL != "" {
			opts = append(opts, openai.WithBaseURL(cfg.baseURL))
		}
		c, err := openai.New(opts...)
		if err != nil {
			return chosenModel{}, err
		}
		return chosenModel{client: c, name: "openai " + cfg.model + " (Responses API, billable)",
			how: "native — a client-executed tool_search that the adapter answers with Quiver's ranking"}, nil
	case "anthropic":
		key, err := requireKey(getenv, anthropicKeyVar, cfg.provider)
		if err != nil {
			return chosenModel{}, err
		}
		opts := []anthropic.Option{anthropic.WithAPIKey(key), anthropic.WithModel(cfg.model)}
		if cfg.baseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(cfg.baseURL))
		}
		c, err := anthropic.New(opts...)
		if err != nil {
			return chosenModel{}, err
		}
		return chosenModel{client: c, name: "anthropic " + cfg.model + " (Messages API, billable)",
			how: "native — get_weather sent with defer_loading, found by Anthropic's hosted BM25 search"}, nil
	default: // compat
		if cfg.baseURL == "" {
			return chosenModel{}, errors.New("-provider compat needs -base-url, the server's OpenAI-compatible API root: http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM) or http://localhost:8080/v1 (llama-server)")
		}
		opts := []compat.Option{compat.WithBaseURL(cfg.baseURL), compat.WithModel(cfg.model)}
		if key := getenv(compatKeyVar); key != "" {
			opts = append(opts, compat.WithAPIKey(key))
		}
		c, err := compat.New(opts...)
		if err != nil {
			return chosenModel{}, err
		}
		return chosenModel{
			// The Chat Completions API has no tool search: the agent opts
			// into the portable one, which the compat client runs itself
			// (it is portable.Wrap around the plain Chat Completions
			// client; wrapping it again would add nothing).
			client: c,
			search: model.SearchSettings{Mode: model.SearchPortable},
			name:   "compat " + cfg.model + " at " + cfg.baseURL + " (Chat Completions)",
			how:    "portable — the model calls search_tools like any function; Quiver answers it",
		}, nil
	}
}

// requireKey returns the value of the variable name, or an error naming it.
func requireKey(getenv func(string) string, name, provider string) (string, error) {
	key := strings.TrimSpace(getenv(name))
	if key == "" {
		return "", fmt.Errorf("-provider %s needs an API key in %s (the calls are billable); set it, or run without -provider to stay offline", provider, name)
	}
	return key, nil
}

// exampleModel suggests a model id for a provider's error message.
func exampleModel(provider string) string {
	switch provider {
	case "anthropic":
		return "claude-sonnet-4-5"
	case "compat":
		return "qwen3:8b"
	case providerBedrock:
		return "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	case providerBedrockOpenAI:
		return "openai.gpt-oss-120b"
	case providerBedrockConverse:
		return "amazon.nova-pro-v1:0"
	}
	return "gpt-5.4"
}

// offlineScript is the model of the offline run: it searches, calls the
// tool the search loaded, and answers from its result.
func offlineScript() *scripted.Client {
	return scripted.New(
		scripted.Call("search_tools", `{"query":"current weather in a city"}`),
		scripted.Call("get_weather", `{"city":"Tokyo"}`),
		scripted.Reply("Tokyo is partly cloudy at 18 °C, with 62% humidity and a light wind of 11 km/h. (The tool returns a fixed example, not a live observation.)"),
	).WithStreaming()
}
