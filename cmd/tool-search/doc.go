// Command tool-search is the provider quickstart of tool search: one agent
// with a deferred weather tool — loaded only once the model searches for it
// — next to one inline tool, run through a real model adapter, or offline
// on a scripted model when no provider is given.
//
//	go run ./cmd/tool-search                                      # offline: no key, no network
//	go run ./cmd/tool-search -provider openai -model MODEL_ID     # needs OPENAI_API_KEY
//	go run ./cmd/tool-search -provider anthropic -model MODEL_ID  # needs ANTHROPIC_API_KEY
//	go run ./cmd/tool-search -provider compat -model qwen3:8b -base-url http://localhost:11434/v1
//	go run ./cmd/tool-search -provider bedrock -model us.anthropic.claude-sonnet-4-5-20250929-v1:0  # AWS default chain
//	go run ./cmd/tool-search -provider bedrock-openai -model openai.gpt-oss-120b
//	go run ./cmd/tool-search -provider bedrock-converse -model amazon.nova-pro-v1:0
//
// It prints the conversation as the model saw it: the search, the tool the
// search loaded, the call, its result and the answer. Who searches depends
// on the provider (seed 000, "Qui effectue la recherche ?"): OpenAI
// Responses runs a client-executed tool_search that the adapter answers
// with Quiver's own ranking; Anthropic Messages gets the tool with
// defer_loading and searches it with its hosted BM25 tool; an
// OpenAI-compatible server (compat: Ollama, vLLM, llama-server) has no
// native search, so the agent opts into portable search
// (model.SearchPortable, answered by the portable.Wrap the compat client
// carries) and the model calls a search_tools function. The
// offline run plays the portable conversation on model/scripted.
//
// Keys come from the environment only: OPENAI_API_KEY for openai,
// ANTHROPIC_API_KEY for anthropic, and for compat COMPAT_API_KEY when its
// server wants one (never OPENAI_API_KEY, which is meant for
// api.openai.com). A chosen provider without its key, a provider without
// -model, or compat without -base-url stops the program with exit code 2
// before anything is sent. -base-url points openai and anthropic at a
// gateway or proxy; without it their SDKs' defaults apply (which honour
// OPENAI_BASE_URL and ANTHROPIC_BASE_URL).
//
// The provider runs make real, billable calls; the offline run is what
// `go test` checks, with the provider runs played against local fakes of
// each API. The weather helper returns a fixed example — Tokyo's
// weather — whatever the day. A one-tool example proves no token saving:
// measure quality and usage with your real model and catalog.
package main
