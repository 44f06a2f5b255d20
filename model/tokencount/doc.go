// Package tokencount measures what advertising tool definitions costs in a
// model request: the tokens of the tools array as the provider receives it.
//
// It renders a catalog in the OpenAI Responses request shape (function tools
// plus, when some tools are deferred, one client-executed tool_search tool)
// and counts the bytes with the o200k_base vocabulary of
// github.com/tiktoken-go/tokenizer, whose vocabularies are compiled into the
// binary: counting never touches the network.
//
// The count is that of the JSON the client sends. Providers render tool
// definitions into the prompt in their own way, so the figure is a faithful
// proxy for comparing ways of advertising one catalog (all inline, all
// deferred, a split), not the exact number a provider bills.
//
// Invariants: rendering is deterministic (tools in the order given,
// parameters as written, compacted); counts of the same bytes are equal.
package tokencount
