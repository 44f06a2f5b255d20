// Package completion owns typed completions: a model invocation whose
// final answer is one JSON document meeting a declared schema, decoded
// into a Go value, instead of tool calls or free text. Code generated for
// a design's Completion declarations builds a [Completion] with [New] and
// calls its [Completion.Complete] (unary) or [Completion.StreamComplete]
// (streamed) methods.
//
// The contract:
//
//   - The [Definition]'s schema is the canonical contract. Each request
//     carries it as model.Request.StructuredOutput; the adapter asks its
//     provider to constrain decoding to it, or refuses the request with
//     model.ErrStructuredOutputUnsupported. Nothing falls back to asking
//     for JSON in the prompt.
//   - A completion request offers no tools and declares no structured
//     output of its own: a request with Tools or ToolChoice fails with
//     [ErrToolsInCompletion], one with StructuredOutput already set with
//     [ErrStructuredOutputSet], both before any model request. The
//     caller's request is never modified.
//   - Each call makes exactly one model request and never retries. The
//     answer's text is validated against the schema (by the validator
//     package tools compiles tool contracts with) before the decode
//     function sees it. Text that is not one JSON document, a schema
//     violation, an answer cut at the token limit, or tool calls fail with
//     a *planner.OutputContractError, which is not recoverable: no
//     correction request is made.
//   - A [Streamer] forwards the answer's text as [ChunkDelta] chunks for
//     preview only. Its value exists only after a clean end of the stream
//     and validation ([Streamer.Value] returns [ErrNotComplete] before);
//     no exported function decodes a chunk.
//
// An error looks like:
//
//	planner: completion "weather_report": the model's answer breaks its output contract: temp: must be a number (got string)
package completion
