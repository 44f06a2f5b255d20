// Package tokencount counts o200k_base tokens offline: bytes (Count) and
// conversations and requests (Counter, a model.TokenCounter).
//
// The vocabulary is that of github.com/tiktoken-go/tokenizer, compiled into
// the binary: counting never touches the network.
//
// Counter counts content as OpenAI's chat format frames it: exact for plain
// text conversations on o200k_base models, an estimate for tool calls, tool
// results and tool definitions, whose rendering each provider chooses.
//
// What advertising tool definitions costs in a provider's request — the
// "tools" array each adapter actually sends — is measured by the
// sub-package advertised, which renders through the adapters. This package
// stays free of the provider SDKs, so that packages that only count
// conversations (model/scripted, and through it the runtime's tests) do
// not compile them.
//
// Invariants: counts are deterministic; counts of the same bytes are equal.
package tokencount
