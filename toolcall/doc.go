// Package toolcall owns one tool call: the call an executor receives
// ([Call]), the one executor interface ([Executor], [ExecutorFunc]) that serves
// a toolset in process, behind an MCP server and behind a registry provider
// (registry.Serve), the result and the typed failure it returns ([Result],
// [Failure] with an enumerated [Kind] and a [Recovery]), and the single
// pipeline every caller runs a call through ([Run]):
//
//	canonicalize (Canonicalize, at admission) → validate the payload
//	(CheckPayload) → inject (Inject) → run the executor → validate the
//	result → project bounds → keep server data out (Shape) → the answer
//	the model reads (Outcome.Answer).
//
// ExampleRun runs four calls through it: a success, a typed failure, a
// plain error and a payload missing its fields.
//
// Every model-facing message of a call is written once, here
// (messages.go); a test in internal/sourceguard fails when one is written
// again elsewhere. The pure steps — [CheckPayload], [Shape], [ProjectBounds],
// [BoundsFromResult], [RouteServerData] — run nothing, so workflow code can
// apply them to any answer that must meet a tool's contract.
//
// # What differs between callers, and why
//
// The runtime (runtime's execute activity) and the MCP server (mcp) run
// the same pipeline. What legitimately differs is a named parameter of
// the call ([Options]), or happens before or after the pipeline:
//
//   - Bounds: [Options.PartnerCursorHeld]. The runtime keeps a ContinueWith
//     chain's cursor and continues a page itself, so a continued partner's
//     declared cursor is not shown to the model; no MCP client holds a
//     chain, so over MCP the cursor stays in the result.
//   - Missing required fields: [Options.RunMissing]. The runtime's
//     OnMissingFields("resume") runs such a call; otherwise both answer
//     [KindMissingFields], and the runtime may instead ask a person for
//     [Outcome.Missing] (await_clarification) — MCP cannot ask anyone.
//   - Argument limits: [Canonicalize]'s limits. The runtime passes its
//     ModelOutput limits; MCP the defaults.
//   - Result hints: the runtime renders Result hints for its events from
//     [Outcome.Raw] after the pipeline; MCP has no timeline and shows none.
//   - Server data: both get [Outcome.ServerData] routed by audience; the
//     runtime stores timeline and evidence data, MCP keeps it on the
//     server.
//   - Admission before the pipeline: the runtime checks the catalog,
//     caps and confirmations; MCP checks scope, credentials and its
//     search state, refuses confirmation-gated tools ([KindNotPermitted])
//     and names the search with catalog.Refusal, as the runtime does.
//
// Before this package, the two paths differed where nobody had decided
// they should; each is now one behaviour:
//
//   - An executor's plain error: the runtime answered code "error" with
//     the bare message, MCP "The tool failed: …" in plain text. Both now
//     answer [KindToolError], "The tool failed: …".
//   - A call lacking only required fields over MCP was invalid_payload;
//     it is [KindMissingFields] as in the runtime.
//   - Injected fields: the runtime injected before running and answered
//     injection_failed; MCP injected lazily inside Decode. Both inject
//     before running ([Inject]).
//   - [Failure] shape: the runtime showed {"error","message","recovery"};
//     MCP showed the pipeline's own failures as plain text and only an
//     executor's failure as that JSON, without defaulting its recovery.
//     Both now show [Failure.JSON], recovery defaulted to [RecoveryReplan].
//   - Refused arguments: "Not run: the arguments were refused; …" with one
//     problem per line (runtime) against "The arguments were refused; …"
//     (MCP): one message ([RefusedPayload]).
//   - A failed bounds projection: invalid_result in the runtime, a bare
//     message over MCP: both [InvalidResult].
//   - A tool that is gone: three texts ("is not registered", "is not
//     available any more", "is no longer served"): one (Unavailable).
//   - A bounded result's bounds: the runtime required [Result.Bounds] in
//     process and read the canonical fields only from a registry; [Shape]
//     now reads them from the result's canonical fields whenever
//     Result.Bounds is nil, so one executor serves every path.
//
// # Migration
//
// The runtime's names remain as aliases, so generated code and existing
// executors compile unchanged: runtime.ToolExecutor = [Executor],
// runtime.ToolExecutorFunc = [ExecutorFunc], runtime.ToolCall = [Call],
// planner.ToolResult = [Result], planner.ToolFailure = [Failure],
// planner.Bounds = [Bounds], planner.ServerData = [ServerData],
// planner.RecoveryAction = [Recovery]. [Failure.Code] is now a [Kind]:
// untyped string constants still assign to it; a string variable needs
// toolcall.Kind(v). runtime.CallRegistry is registry.CallTool and
// runtime.BoundedResult is [BoundsFromResult]. mcp.Tool.Run is
// mcp.Tool.Executor, and mcp.Toolsets takes []Toolset
// (runtime.ToolsetRegistration.Toolset converts). The code "error" of an
// executor's failure is now "tool_error".
//
// The package must not import runtime, mcp, registry or an engine: they
// import it.
package toolcall
