// Package tokencount measures what advertising tool definitions costs in a
// model request: the tokens of the tools array as the provider receives it.
//
// It renders a catalog in two request shapes and counts the bytes with the
// o200k_base vocabulary of github.com/tiktoken-go/tokenizer, whose
// vocabularies are compiled into the binary: counting never touches the
// network.
//
//   - OpenAI Responses (OpenAIResponsesTools): function tools plus, when
//     some tools are deferred, one client-executed tool_search tool; the
//     deferred tools are not in the request. The count is that of the whole
//     tools array.
//   - Anthropic Messages (AnthropicMessagesTools): custom tools, the
//     deferred ones marked "defer_loading":true, plus the hosted BM25 search
//     tool. The deferred definitions are in the request but the provider
//     loads them into the model's context only once a search finds them, so
//     the count is that of the non-deferred definitions and the search tool
//     (AnthropicLoadedTools). No Anthropic tokenizer is available offline:
//     the o200k_base figure is an approximation (Provider.Approximate).
//
// The count is that of the JSON the client sends. Providers render tool
// definitions into the prompt in their own way, so the figure is a faithful
// proxy for comparing ways of advertising one catalog (all inline, all
// deferred, a split), not the exact number a provider bills.
//
// Invariants: rendering is deterministic (tools in the order given,
// parameters as written, compacted); counts of the same bytes are equal.
package tokencount
