// Package providerfake is a local model provider for tests: an HTTP server
// that answers scripted provider-shaped JSON in order at one path and
// records every request it receives, with builders for the response shapes
// of the three provider APIs Quiver's adapters speak — OpenAI Responses
// ([OpenAIResponse]), Anthropic Messages ([AnthropicMessage]) and
// OpenAI-compatible Chat Completions ([ChatCompletion]).
//
// It owns the fake and the shapes, once, for every package whose tests put
// a real adapter in front of a provider: the adapters themselves
// (model/openai, model/anthropic, model/compat), the token counts of what
// they send (model/tokencount/advertised), the discovery core's
// cross-provider tests, cmd/tool-search and the examples. What a test
// checks of the requests — goldens, headers it cares about — stays with
// that test.
//
// Invariants:
//
//   - A [Server] is strict: a request that is not a POST to its path, or
//     that arrives when the scripted answers have run out, fails the test
//     (and is recorded, and answered with an error status).
//   - Every request is recorded, in arrival order, with its method, path,
//     headers and body.
//   - The builders write JSON exactly as the provider sends it (checked
//     against the SDK named on each builder), so the adapters decode it
//     with their real SDK client.
//
// It must not be imported by non-test code (a guard test checks).
package providerfake
