// Package anthropic is the model.Client of the Anthropic Messages API
// (POST /v1/messages), direct or on Amazon Bedrock (WithBedrock), built on
// the official SDK github.com/anthropics/anthropic-sdk-go/v2 (v2.15.0).
//
// # Requests
//
// The system prompt (and the transcript's leading system messages) become
// the system blocks; user text, assistant text and tool_use blocks, and tool
// results as tool_result blocks of a user message follow, consecutive
// user-side messages merged into one user message with the tool results
// first. Tool definitions become custom tools under their wire names. The
// tool choice maps to auto (not sent), any, none or tool. Cache checkpoints
// map to cache_control: AfterSystem on the last system block, AfterTools on
// the last tool (the search tool, when the request has one). A checkpoint
// with nothing to follow — AfterSystem without a system prompt, AfterTools
// without tools — is ignored, not an error: it is left out of the request
// and listed in the response's model.Response.IgnoredCheckpoints. A definition's
// declared root example is sent as input_examples, with its schema stripped
// of the root "example"/"examples" that would repeat it — except in a
// request that carries a search tool, where the schema keeps its example
// (Anthropic docs, "Tool search tool": the tool search tool is not
// compatible with tool use examples). MaxTokens is required
// (ErrMaxTokensRequired).
//
// No anthropic-beta header is needed: in SDK v2.15.0 defer_loading, the
// tool search tools, tool_reference and input_examples belong to the GA
// Messages API, and Anthropic documents tool search as stable. WithBetas
// adds the header for platforms that still gate them
// ("advanced-tool-use-2025-11-20").
//
// # Tool search
//
// Deferred definitions are sent in full with "defer_loading": true, except
// a tool the request forces (ToolChoiceTool), which stays eager so the
// model can call it at once — unless the history holds a tool_reference to
// it: a referenced tool keeps defer_loading (the reference loaded it, and
// the API expands references into deferred definitions only). Every tool
// name, and SearchSettings.ToolName when set, must match
// ^[a-zA-Z0-9_-]{1,64}$ ("Define tools"); a request that breaks it fails
// before anything is sent, with an error naming the pattern. The search
// tool of the variant closes the tool list, and stays in it while the
// history holds searches:
//
//   - SearchBM25 (default) and SearchRegex: Anthropic's hosted search
//     (tool_search_tool_bm25_20251119 / tool_search_tool_regex_20251119).
//     The provider searches and expands the definitions within one
//     response; the adapter keeps the server_tool_use and
//     tool_search_tool_result blocks. These searches are not capped by us.
//     A tool_search_tool_result_error becomes a *SearchError.
//   - SearchClient: our own search tool (a regular custom tool named by
//     SearchSettings.ToolName, else WithClientSearchToolName, else
//     DefaultClientSearchToolName) that the adapter answers through the
//     discovery core (package discovery, one Engine per Client, ranking
//     by the discovery.Settings of WithDiscovery), re-requesting within
//     the invocation's MaxTokens. A search that finds tools is answered
//     with one tool_reference block per tool; any other answer with one
//     text block holding the core's JSON: no match
//     ({"message":"No tool matched this query. Try other words, or use one
//     of: …","query":"…","tools":[]}), a call without a query
//     ({"error":"invalid-query",…}, "is_error": true) or a search past the
//     request's per-turn cap ({"error":"search-budget-exhausted",
//     "budgetCap":N}, "is_error": true, the exhaustion recorded). The
//     discovered tools and the turn's used budget come from the request
//     (Request.DiscoveryState); a discovered tool no tool_reference of the
//     history loads (another adapter found it) is sent without
//     defer_loading. A model that keeps searching past the budget fails the
//     invocation with discovery.ErrSearchLoop.
//
// The planner receives only ordinary calls (Response.ToolCalls, wire
// names). Every block that is neither text nor an ordinary tool_use — the
// search blocks above, the client-side search calls, thinking blocks — is
// kept verbatim in the assistant message's metadata under MetaKey (a
// Record, with each block's index and the adapter's own search results)
// and replayed in place on later requests. The discovery record
// (model.Message.SetDiscovery) lists the idents of the tools the searches
// referenced. The Record also fingerprints each referenced definition: a
// later request whose definition under that name changed, or that no
// longer carries it, fails with a *DefinitionChangedError — the provider
// would expand the reference with the new definition, and the adapter
// never resets history silently. Start a new conversation or compact the
// history deliberately.
//
// All the variants are native search: Client.SupportsSearch
// (model.SearchCapable) accepts the native mode and refuses the portable
// one with model.ErrToolSearchUnsupported — portable mode is portable.Wrap's
// to answer — as a request in portable mode with deferred tools is refused
// before anything is sent. The runtime asks it when an agent that defers
// tools is registered or starts a run.
//
// # Amazon Bedrock
//
// WithBedrock(cfg) (or WithBedrockDefaultConfig(ctx), which loads cfg from
// the AWS default chain: region and credentials never belong in code)
// sends the same requests to Claude on Amazon Bedrock through InvokeModel
// (POST /model/{modelId}/invoke), using the SDK's bedrock middleware for
// SigV4 signing. Everything above applies unchanged — the same
// preparation, hosted and client-side tool search, defer_loading,
// input_examples, cache checkpoints; the body is the direct one except:
//
//   - no "model": the model id is the path segment, escaped by the SDK.
//     It is a Bedrock id: a foundation model id
//     ("anthropic.claude-sonnet-4-5-20250929-v1:0"), a cross-region
//     inference profile id ("us.anthropic.claude-sonnet-4-5-20250929-v1:0",
//     "global.…") or an ARN (its "/" sent as %2F);
//   - "anthropic_version": "bedrock-2023-05-31" (BedrockAnthropicVersion),
//     which Bedrock requires. The SDK's middleware would copy the SDK's
//     first-party version instead; WithBedrock sets Bedrock's;
//   - "anthropic_beta": the names given to WithBetas, which Bedrock takes in
//     the body, not as the anthropic-beta header. Bedrock gates the hosted
//     tool search behind "tool-search-tool-2025-10-19" (Anthropic docs,
//     "Tool search tool"): give WithBetas("tool-search-tool-2025-10-19")
//     where the model or account still requires it.
//
// Search on Bedrock: the hosted BM25 and regex tool search (SearchBM25,
// SearchRegex) with defer_loading work through InvokeModel, as above;
// the client-side search (SearchClient) works too, being ordinary tools
// and tool_reference blocks. Bedrock's Converse API does not implement the
// hosted tool search: this adapter never uses Converse.
//
// Bedrock's errors become *APIError too, with the exception name of
// X-Amzn-ErrorType as Type ("ThrottlingException"), the body's message and
// X-Amzn-RequestId. APIError.Temporary reports the transient ones —
// ThrottlingException (429), ServiceUnavailableException (503),
// ModelNotReadyException, ModelTimeoutException, InternalServerException
// and any 408, 409, 429 or 5xx — which the SDK also retries itself, signed
// anew, up to WithMaxRetries times. WithBaseURL replaces the regional
// endpoint (a VPC endpoint, a test server), else aws.Config.BaseEndpoint
// does; WithAPIKey is refused with it. Stream on Bedrock goes through
// InvokeModelWithResponseStream (POST /model/{modelId}/invoke-with-response-stream),
// whose AWS event-stream frames the SDK's middleware turns back into the
// Messages API's events: streaming behaves as on the direct API.
//
// # Streaming
//
// Complete sends each request of the invocation for a whole response;
// Stream sends the same requests with "stream": true and follows their
// server-sent events (message_start, content_block_start, the
// content_block_delta of text and of tool input, content_block_stop,
// message_delta, message_stop; ping skipped). Both run one round loop: a
// streamed request's message is accumulated from its events
// (Message.Accumulate of the SDK) and mapped by the same code as a whole
// one, so a stream's final response (model.ChunkDone) is the one Complete
// returns for the same answers. Meanwhile Stream delivers, in the
// provider's order: text deltas (model.ChunkText); for each ordinary
// tool_use block an announcing model.ChunkToolCallDelta, one per
// input_json_delta, and the finished call (model.ChunkToolCall) when the
// block stops; a model.ChunkSearch for each hosted search when its
// tool_search_tool_result block stops, and for each client-side search
// once the adapter has answered it, between two requests; and a
// model.ChunkUsage at the end of each request's message. Search calls
// never stream as calls. A stream that ends before message_stop fails
// with an error wrapping model.ErrStreamInterrupted, and nothing streamed
// for the unfinished block is delivered as a call; an error event fails
// with an *APIError (overloaded_error and the other transient types are
// Temporary). Close, or canceling the context, cancels the request.
//
// # Options
//
// The options shared with the other adapters have the same names there:
// WithModel, WithClassModel, WithBaseURL, WithAPIKey, WithHTTPClient,
// WithMaxRetries and WithDiscovery (the ranking settings of SearchClient,
// discovery.Settings). A request whose model id cannot be resolved fails
// with model.ErrNoModel.
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
// Provider errors are *APIError values wrapping the SDK's *anthropic.Error;
// APIError.Temporary says whether retrying later may succeed.
// A turn the provider pauses (stop_reason pause_turn) fails with
// ErrPauseTurn: continuing paused turns is not implemented.
package anthropic
