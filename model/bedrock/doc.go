// Package bedrock adapts model.Client to Amazon Bedrock's Converse API
// (POST /model/{modelId}/converse, and converse-stream for Stream) through
// the official SDK, github.com/aws/aws-sdk-go-v2/service/bedrockruntime
// (Client.Converse, Client.ConverseStream).
// It owns every Bedrock model that is neither Claude through InvokeModel
// (the model/anthropic adapter on Bedrock) nor OpenAI's Responses API:
// Amazon Nova, Meta Llama, Mistral, Cohere, AI21, DeepSeek and the other
// models Converse serves — and Claude too, without deferred tools.
//
// Configuration comes from the AWS default chain (config.LoadDefaultConfig:
// environment, shared files, SSO, instance roles), or from WithAWSConfig.
// Region and credentials are never written in code; WithBaseURL replaces
// the endpoint (tests, VPC endpoints). Requests are signed with SigV4.
//
// What the adapter sends and returns:
//
//   - the system prompt as system[].text; user and assistant text as
//     content[].text; assistant tool calls as content[].toolUse
//     (toolUseId, name, input); tool results as a user message of
//     content[].toolResult blocks (toolUseId, content[].text holding the
//     result's JSON, and status "error" for failed calls on Claude ids,
//     the only models that accept the field);
//   - tools inline as toolConfig.tools[].toolSpec (name, description,
//     inputSchema.json); tool choice as toolConfig.toolChoice (auto, any,
//     tool). ToolChoiceNone sends no tools at all: Converse has no "none".
//     A request without tools (ToolChoiceNone, or none defined, as in the
//     standard planner's final answer) sends the transcript's tool calls
//     and results as text blocks, since Converse refuses toolUse and
//     toolResult blocks without toolConfig;
//   - Request.MaxTokens as inferenceConfig.maxTokens, and the client's
//     WithTemperature as inferenceConfig.temperature (model.Request has no
//     temperature of its own);
//   - tool examples (ToolDefinition.Examples) are not sent, for any model,
//     Claude included: toolSpec has no field for them, and
//     additionalModelRequestFields is merged at the top level of the
//     model's native body, where Converse writes the tools itself, so it
//     cannot add input_examples to one tool. The input schema is sent as
//     declared, so examples the schema itself holds still reach the model.
//     For Claude with input_examples, use model/anthropic on InvokeModel;
//     additionalModelRequestFields is never sent;
//   - responses as one assistant message with text and tool-call parts,
//     Response.ToolCalls, usage (input, output, cache read and write
//     tokens) and the stop reason (end_turn, stop_sequence → end turn;
//     tool_use; max_tokens and model_context_window_exceeded → max tokens;
//     guardrail, content-filter and malformed-output stops are errors).
//
// Invariants:
//
//   - Deferred tools are never advertised eagerly. Converse has no tool
//     search: Client.SupportsSearch (model.SearchCapable) refuses native
//     mode with model.ErrToolSearchUnsupported, naming the fixes (portable
//     search: wrap the client with portable.Wrap and set Search.Mode to
//     model.SearchPortable; or, for Claude, the model/anthropic adapter on
//     Bedrock's InvokeModel, which runs the hosted tool search), and refuses
//     portable mode unwrapped the way model.NativeSearch does. So the
//     runtime refuses an agent that defers tools on this client when it is
//     registered, and a request with deferred tools that reaches the client
//     fails before any HTTP request.
//   - Message metadata (Message.Meta) is never sent.
//   - Prompt-cache checkpoints (Request.Cache) are not placed: they are
//     listed in Response.IgnoredCheckpoints, since only some Converse
//     models accept cachePoint blocks.
//   - Stream sends the same request to ConverseStream (POST
//     /model/{modelId}/converse-stream) and reads its event stream: text
//     deltas as model.ChunkText, a tool call's start and input deltas as
//     model.ChunkToolCallDelta, its contentBlockStop as the
//     model.ChunkToolCall, the metadata event's usage as model.ChunkUsage,
//     and messageStop's stop reason in the final response, which is the
//     one Complete returns for the same content. An event stream that
//     ends before messageStop and metadata (a cut connection, an
//     exception event) fails with model.ErrStreamInterrupted; no
//     unfinished call is delivered. Close cancels the request.
//   - Request bodies reach net/http without their WriteTo method: smithy-go
//     closes a body once the response headers arrive, and its WriteTo then
//     fails the transport's last read, which closed the connection under
//     the answer being read (see guardBodies).
//   - An error answered by Bedrock is an *APIError (status, exception
//     name, message, request id) wrapping the SDK's error; its Temporary
//     method reports the retryable ones: ThrottlingException (429),
//     ServiceUnavailableException (503), ModelNotReadyException,
//     InternalServerException, ModelTimeoutException and any 5xx. Others
//     (validation, access denied, unknown model) are permanent.
//
// The options shared with the other adapters have the same names there:
// WithModel, WithClassModel, WithBaseURL, WithHTTPClient and
// WithMaxRetries. A request whose model id cannot be resolved fails with
// model.ErrNoModel.
package bedrock
