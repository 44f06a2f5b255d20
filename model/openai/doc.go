// Package openai adapts model.Client to the OpenAI Responses API
// (POST /responses) through the official SDK, github.com/openai/openai-go/v3.
//
// It owns the mapping between Quiver's provider-neutral requests and the
// Responses wire format, and native discovery of deferred tools with a
// client-executed tool_search tool, ranked in-process by package search.
//
// # Requests
//
// Request.System becomes "instructions"; messages become input items (text
// as "message" items, assistant tool calls as "function_call" items, tool
// results as "function_call_output" items); each definition that is not
// deferred becomes a "function" tool with "strict": false whose name is the
// definition's wire name; MaxTokens becomes "max_output_tokens"; ToolChoice
// becomes "tool_choice" ("none", "required" or {"type":"function","name":…}).
// A forced tool is always advertised eagerly, even when it is deferred.
// Declared payload examples are not sent: Responses function tools have no
// field for them.
//
// Prompt caching is automatic in the Responses API. Cache.AfterSystem is
// honoured with the only breakpoint field the API has, on input content
// blocks: the system prompt is then sent as a leading "system" message whose
// input_text block carries "prompt_cache_breakpoint": {"mode": "explicit"}
// instead of "instructions". A checkpoint the API cannot place is ignored —
// left out of the request, listed in the response's
// model.Response.IgnoredCheckpoints, never an error: Cache.AfterTools
// always (tool definitions carry no breakpoint; the API caches the tools
// prefix on its own), Cache.AfterSystem when the request has no system
// prompt to mark.
//
// # Discovery
//
// When any definition is Deferred, the request's MaxTokens must be positive
// (ErrMaxTokensRequired), and its search mode native: a request in portable
// mode is refused with model.ErrToolSearchUnsupported, since portable.Wrap
// should have wrapped this client. Client.SupportsSearch
// (model.SearchCapable) gives the same answer before any request: the
// runtime asks it when an agent that defers tools is registered or starts
// a run.
// Every tool name, and SearchSettings.ToolName when set, must match the
// function-name pattern ^[a-zA-Z0-9_-]{1,64}$; a request that breaks it
// fails before anything is sent, with an error naming the pattern.
//
// The searches are answered by the discovery core (package discovery), the
// same for every adapter: one Engine per Client (its discovery.Settings
// given by WithDiscovery) ranks the deferred definitions with their search
// documents, cuts the weak hits and keeps the index of a catalog while its
// fingerprint stays the same. The first request carries the eager
// functions and one {"type":"tool_search","execution":"client"} tool whose
// description names no tool: the deferred catalog stays in the
// application. For each "tool_search_call" the model emits, the adapter
// asks the core for its query and answers with a "tool_search_output" item
// (same call_id, "execution": "client") whose tools are one "namespace" per
// match, named like the function it holds, the function being
// "defer_loading": true, and sends the next request: the previous input,
// the round's output items and the search outputs. The model then calls a
// loaded function as usual (the provider echoes the namespace on the call;
// ToolCall.Name is the function name, which equals it).
//
// An answer that loads nothing — no match, a call without a query, or the
// turn's budget spent — is still told to the model: the tool_search_output
// has no text field, so it is sent with no tools and followed by a
// {"type":"message","role":"developer"} input item whose content is the
// core's JSON answer, e.g. {"error":"search-budget-exhausted","budgetCap":3}
// or {"message":"No tool matched this query. Try other words, or use one of:
// …","query":"…","tools":[]}. The item is recorded with the others and
// replays in place.
//
// Rounds share the invocation's output-token budget: each request's
// max_output_tokens is MaxTokens minus the output tokens of earlier rounds.
// When what is left is below the API's minimum (16), the adapter stops
// after answering the pending searches and returns the response so far with
// StopReason model.StopMaxTokens (no error): the search records are kept,
// so the next invocation replays them and the model continues. A search
// call the provider cut off (status other than "completed") is not run or
// counted but is answered with an empty tools list, so the stored items
// never hold a call without its output.
//
// The conversation's discovered tools and the searches its turn has used
// come from the request (Request.DiscoveryState: the runtime's state, or
// the transcript's records for a request without one), never from the
// adapter's own reading of the transcript. Searches count against the
// per-turn budget (Request.Search.SearchCap()); a search past it is
// refused as above and the exhaustion recorded. tool_search is declared
// while there are deferred tools to search and the turn's budget was not
// refused, and in any case while the input holds a tool_search_call, so a
// history with search calls never lacks its tool. A model that keeps
// searching past its budget fails the invocation with
// discovery.ErrSearchLoop. A response that mixes search calls and function
// calls has its searches answered and recorded, and its function calls
// returned.
//
// # Responses and replay
//
// Response.ToolCalls holds only function calls. Response.Messages holds one
// assistant message: its text and tool-call parts; under
// model.DiscoveryMetaKey the discovery record (idents of the tools the
// searches returned, searches answered, exhaustion); under MetaKey the
// invocation's items, in order, exactly as the provider returned them
// (reasoning, tool_search_call, message, function_call with its namespace…)
// plus the tool_search_output items the adapter answered with and the
// developer messages that told the answers they could not carry. Nothing
// else is added to what the provider returned.
//
// An assistant message carrying MetaKey is replayed from those items; one
// without it (written by another adapter or by hand) is rebuilt from its
// parts. In a replayed tool_search_output, a namespace whose definition is
// no longer a deferred definition of the request, or renders differently
// now (description or input schema changed), is dropped from the request —
// the stored transcript is never changed. A tool the conversation
// discovered that no replayed output loads (its namespace was dropped, or
// another adapter discovered it) is advertised as an ordinary function
// tool, so it stays callable; a search never loads a tool twice.
//
// # Streaming
//
// Client.Stream runs the invocation Complete runs — the same requests,
// each with "stream": true, the same search rounds between them — over
// the Responses API's server-sent events (the SDK's
// Responses.NewStreaming), and delivers what arrives as it arrives:
// model.ChunkText for each output_text (or refusal) delta; for each
// function call, model.ChunkToolCallDelta pieces with its call_id and the
// name the model called — an announcement, possibly with no arguments,
// when its output_item.added arrives, then one per
// function_call_arguments.delta, the pieces joining to its arguments —
// and a model.ChunkToolCall when its output_item.done arrives, the call
// Complete returns; a model.ChunkUsage when each request's response
// completes; and, after each client-executed tool_search call the
// discovery core answered, a model.ChunkSearch with the query and the wire
// names it loaded, before the next request (which carries them). A search
// call never streams a delta or a call. The last chunk, model.ChunkDone,
// holds the response Complete returns for the same provider answers: each
// round's response is the one of its response.completed (or
// response.incomplete) event, mapped by the code Complete uses.
//
// A stream that ends without that event fails with an error wrapping
// model.ErrStreamInterrupted, and a call whose item was not done is never
// delivered; a response.failed event fails as a failed response does
// (ErrResponseFailed), an "error" event as a *StreamError (which wraps
// it), an HTTP error before the stream as an *APIError. Closing the
// stream, or cancelling its context, cancels the request in flight.
// Bedrock (WithBedrock) streams the same Responses events through the same
// SDK client, signed the same way.
//
// # Options
//
// The options shared with the other adapters have the same names there:
// WithModel, WithClassModel, WithBaseURL, WithAPIKey, WithHTTPClient,
// WithMaxRetries and WithDiscovery (the ranking settings of tool_search,
// discovery.Settings); WithBedrock is this adapter's own. A request whose model id cannot be resolved fails
// with model.ErrNoModel.
//
// # Amazon Bedrock
//
// WithBedrock sends the same Responses requests to Amazon Bedrock's
// OpenAI-compatible endpoint through the SDK's bedrock package, which owns
// the endpoint and the authentication (bedrock.Config). By default that is
// the Mantle endpoint, POST https://bedrock-mantle.<region>.api.aws/openai/v1/responses,
// signed with AWS Signature Version 4 for the service "bedrock-mantle"
// ("bedrock" on bedrock.EndpointRuntime) with credentials and region from
// the AWS default chain, so neither appears in code:
//
//	c, err := openai.New(
//		openai.WithBedrock(bedrock.Config{}), // region and credentials: AWS default chain
//		openai.WithModel("openai.gpt-oss-120b"),
//	)
//
// What differs on the wire from direct OpenAI, and only that: the URL (the
// API root ends in /openai/v1; WithBaseURL overrides it, a local server
// included); Authorization is "AWS4-HMAC-SHA256 Credential=…,
// SignedHeaders=…, Signature=…" with X-Amz-Date and X-Amz-Content-Sha256
// (the body's SHA-256), every attempt signed anew — or "Bearer <key>" for a
// Bedrock API key (bedrock.Config.APIKey or $AWS_BEARER_TOKEN_BEDROCK);
// no OpenAI key is sent (WithAPIKey is refused with WithBedrock) and
// $OPENAI_* is ignored; redirects are not followed. The request bodies,
// the client-executed tool_search and its namespaced answers, and the
// replay records are the same: each function a search loads is placed in
// a namespace of its own name, so Bedrock returns the call with its
// namespace, a full call identity for replay.
//
// Replay on Bedrock adds one rule. A call of a searched tool — a
// function_call whose name an earlier tool_search_output of the history
// loaded — must carry the namespace container that output loaded it in. A
// history written with dynamic functions outside that container (a
// tool_search_output listing the function at its top level), a call
// returned without its namespace or in another one, or a call of a
// searched tool in a message without adapter metadata (rebuilt from its
// parts, which hold no namespace) may be rejected by Bedrock on replay.
// The adapter never invents the provider's missing fields: such a request
// fails before anything is sent, with ErrCallWithoutNamespace naming the
// message — start a new conversation, or remove the whole exchange (that
// assistant message and the tool results answering its calls). Calls of
// eager tools and of discovered tools advertised as functions carry no
// namespace and are not concerned. Direct OpenAI replays such histories as
// before.
//
// Bedrock's throttling (429 ThrottlingException) and transient server
// errors (5xx, such as 503 ServiceUnavailableException) are retried by the
// SDK like OpenAI's (WithMaxRetries; Retry-After honoured); when the
// retries run out the error is an *APIError whose Temporary reports true.
// Bedrock's AWS-shaped error bodies ({"message":…}, the type in
// x-amzn-ErrorType) fill its Message and Type.
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
//
// Provider errors are returned as *APIError, which wraps the SDK's
// *openai.Error; APIError.Temporary reports whether retrying later may
// succeed. The adapter returns model.ErrToolSearchUnsupported only
// for portable mode, which is portable.Wrap's to answer. A Client is safe
// for concurrent use.
package openai
