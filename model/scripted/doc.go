// Package scripted provides a deterministic model.Client for tests and
// offline examples: it plays a fixed script of responses, one step per
// request, and records every request it receives. It never calls a
// provider.
//
//	client := scripted.New(
//		scripted.Call("search_tools", `{"query":"open a table"}`),
//		scripted.Call("openTable", `{"table":"sales"}`),
//		scripted.Reply("The sales table is open."),
//	)
//
// Each Step answers one request, in order. Reply, Call, Calls and
// Assistant build an assistant message (text and tool-call parts) whose
// calls are repeated in Response.ToolCalls; Respond returns a response
// verbatim; Fail returns an error; Func computes the response from the
// request and Choose picks the step from it (e.g. to call a tool the
// request shows was discovered); IgnoreCache wraps a step so its response
// lists the request's cache checkpoints as ignored, as an adapter for a
// provider without prompt caching does. A request after the last step
// fails with ErrScriptExhausted.
//
// Deferred tools: a plain client declares no tool search. Its
// SupportsSearch (model.SearchCapable) refuses native mode with
// model.ErrToolSearchUnsupported, naming the two fixes, so the runtime
// refuses an agent that defers tools to it instead of running a script in
// which no search tool is ever offered. Opt in with WithNativeSearch to
// play a provider with native search:
//
//	client := scripted.New(steps...).WithNativeSearch()
//
// It then searches nothing — a script says what the model does — and
// passes deferred tools to the script as they are, so tests can drive
// admission (a call to a tool that was never discovered) directly. For
// portable discovery, wrap the client with portable.Wrap and set the
// agent's Search.Mode to model.SearchPortable; portable mode on an
// unwrapped client is refused, opted in or not. Complete itself plays the
// script whatever the request's search settings, and whatever its
// StructuredOutput: a script says what the model answers (a completion
// test scripts a Reply with the JSON answer), and the request is recorded
// with it.
//
// Determinism:
//   - the n-th tool call the client emits, counting every call of every
//     response over the client's life from 1, gets the id "call_<n>" unless
//     its step gives one;
//   - Usage is filled for the responses the client builds (Reply, Call,
//     Calls, Assistant, and Func responses that leave it zero): input
//     tokens are the o200k_base tokens of the request's system prompt,
//     messages and tool definitions, output tokens those of the reply's
//     content, both as tokencount.Counter counts them.
//
// Invariants: the client keeps deep copies of requests and script
// responses, so neither the caller's later mutations nor mutations of a
// returned response change what it recorded or plays next. A step's
// construction error (such as a Call whose payload is not valid JSON) is
// reported by Step.Err and returned by the request that plays the step;
// the helpers never panic. A Client is safe for concurrent use; concurrent
// requests take steps in the order they reach it.
package scripted
