// Package compat adapts model.Client to the OpenAI-compatible Chat
// Completions API (POST {base}/chat/completions), the API that local and
// open-model servers speak: vLLM, llama.cpp's llama-server, Ollama, and
// hosted gateways. Requests and responses go through the official SDK,
// github.com/openai/openai-go/v3 (package openai: ChatCompletionService.New,
// ChatCompletionNewParams, the message and tool param unions), so the wire
// shape is the SDK's; the comments of request.go and response.go cite the
// SDK types and the public documentation each field follows.
//
// What the adapter sends and returns:
//
//   - the system prompt first, then user and assistant text, assistant
//     tool calls (tool_calls: id, type "function", name, arguments) and
//     tool results (role "tool" with tool_call_id), one wire message per
//     result;
//   - tools as {"type":"function","function":{name, description,
//     parameters}}; tool choice as "none", "required" or a named function;
//   - the output cap as max_tokens by default (see TokenLimitField: many
//     compatible servers ignore or reject max_completion_tokens);
//   - responses as one assistant message with text and tool-call parts,
//     Response.ToolCalls, usage (prompt, completion and cached tokens when
//     the server reports them) and the stop reason from finish_reason;
//   - streams (Client.Stream) as the same request with "stream": true and
//     stream_options.include_usage, answered with chat.completion.chunk
//     events: text chunks as content arrives, a model.ChunkToolCallDelta
//     per argument fragment (the id and name from the call's first
//     fragment), a model.ChunkToolCall per finished call, a
//     model.ChunkUsage from the usage chunk, then model.ChunkDone with the
//     response Complete would have returned.
//
// Invariants:
//
//   - Message metadata (Message.Meta) is never sent. It stays on the
//     messages of the transcript; the messages this client returns carry
//     the metadata the portable search writes (model.DiscoveryMetaKey).
//   - Deferred tools are never advertised eagerly. These servers have no
//     native tool search: without the agent's portable-search opt-in
//     (Request.Search.Mode == model.SearchPortable) a request with deferred
//     tools fails with model.ErrToolSearchUnsupported before any HTTP
//     request, and Client.SupportsSearch (model.SearchCapable) says so
//     before any request at all: the runtime refuses such an agent when it
//     is registered or starts a run. With the opt-in, the client delegates
//     to portable.Wrap around the plain Chat Completions client — no
//     wrapping of your own is needed: the model sees the inline tools plus
//     a search_tools(query) function, matches join the active set inside
//     the search execution, and the per-turn search budget applies
//     (seed 004).
//   - The Chat Completions API of these servers has no prompt-cache
//     checkpoints (they cache prefixes on their own): the checkpoints of
//     Request.Cache are ignored, never sent, and listed in the response's
//     model.Response.IgnoredCheckpoints — in portable mode too, gathered
//     over the search rounds — so the caller can report them; the request
//     does not fail for them.
//   - A streamed call is delivered only once it is finished: when the
//     next call starts or finish_reason arrives. A stream that ends
//     without finish_reason (the connection cut, the server stopping)
//     fails with an error wrapping model.ErrStreamInterrupted, with no
//     unfinished call and no model.ChunkDone delivered.
//   - An error status from the server is an *APIError carrying the
//     status and the server's message and wrapping the SDK's *openai.Error.
//   - The client never reads OPENAI_* environment variables: a key meant for
//     api.openai.com is never sent to a local server by accident.
//
// The options shared with the other adapters have the same names there:
// WithModel, WithClassModel, WithBaseURL, WithAPIKey, WithHTTPClient,
// WithMaxRetries and WithDiscovery (the ranking settings of the portable
// search, discovery.Settings). A request whose model id cannot be
// resolved fails with model.ErrNoModel.
//
// # Migrating from WithSearchLimit and WithMinRelativeScore
//
// The two options became fields of discovery.Settings, given once with
// WithDiscovery:
//
//	WithSearchLimit(n)         → WithDiscovery(discovery.Settings{Limit: n})
//	WithMinRelativeScore(f)    → WithDiscovery(discovery.Settings{MinRelativeScore: f})
//	WithMinRelativeScore(0)    → WithDiscovery(discovery.Settings{MinRelativeScore: discovery.NoScoreCut})
//	both                       → one WithDiscovery with both fields
//
// A zero field now means the default, so a min relative score of 0 (no
// weak-hit cut) is written discovery.NoScoreCut.
package compat
