// Package advertised measures what advertising a catalog's tools costs in a
// model request: the o200k_base tokens (tokencount.Count) of the "tools"
// array each provider adapter actually sends.
//
// Nothing here renders a provider's wire shape by hand. The definitions are
// those the runtime's catalog advertises (catalog.New, then
// AdvertisedToolDefinitions: the catalog's wire names, deferred flags,
// search documents and examples; Definitions builds them from a catalog
// file), and the bytes are those the adapters put in their request bodies
// (openai.RenderTools, anthropic.RenderTools, which run the adapters' own
// request preparation and SDK encoding). Tests send the same request through
// each adapter to a local server and compare the captured array.
//
//   - OpenAI Responses (ProviderOpenAI): function tools for the inline
//     definitions, then, when some are deferred, the adapter's
//     client-executed tool_search tool; deferred definitions are not in the
//     request. The figure is the whole array, counted with the provider's
//     own vocabulary.
//   - Anthropic Messages (ProviderAnthropic): every definition as a custom
//     tool, deferred ones with "defer_loading": true, then the search tool
//     of the chosen variant (hosted BM25 by default); "input_examples" and
//     "cache_control" as the adapter places them. Deferred definitions are
//     sent but loaded into the model's context only once a search finds
//     them, so the figure counts the array without them (Loaded). No
//     Anthropic tokenizer is available offline: the o200k_base figure is an
//     approximation (Provider.Approximate).
//
// The count is that of the JSON the client sends. Providers render tool
// definitions into the prompt in their own way, so the figure compares ways
// of advertising one catalog (all inline, all deferred, a split); it is not
// the number a provider bills.
//
// This package imports the adapters and therefore their SDKs; package
// tokencount, which counts conversations, does not.
//
// Invariants: the bytes counted are the adapters' request bytes; rendering
// and counting are deterministic.
package advertised
