// Package runtime runs agents: it registers toolsets, agents and models,
// and drives each run through plan → admit → confirm → execute → resume on
// an engine (engine/inmem by default), enforcing the agent's run policy —
// tool-call and recovery caps, time budgets, terminal and bookkeeping
// tools, confirmations, injected fields, server data audiences, bounded
// results, hints, reminders and history policies — and publishing typed
// events (event contract v1, [EventRecord]) to in-process subscribers and
// to the run log other processes follow ([FollowRunLog]).
//
// A [Runtime], made by [New], holds the registrations, runs agents
// ([Runtime.Run], [Runtime.Start]) and resumes suspended runs
// ([Runtime.Continue]). ExampleNew is a complete run on a scripted model;
// ExampleRuntime_Continue suspends a run for a confirmation and resumes
// it with the operator's approval.
//
// Invariants:
//   - Workflow code (runWorkflow and what it calls) is deterministic: it
//     reads time from the engine, does I/O only through activities (plan,
//     execute tool, record) and publishes events only when not replaying,
//     numbering them all the same.
//   - Every event is in the run log ([RunLog]) before the run goes past
//     what it reports: the events are appended before each activity and
//     at each segment's end, idempotently on (run, sequence number), and a
//     run whose events cannot be appended fails. A call's
//     [ToolCallScheduled] is recorded before its executor runs; a run whose
//     process died is recorded [RunInterrupted], its started calls
//     outcome_unknown, and nothing of it runs again
//     ([Runtime.RecoverInterrupted]).
//   - Every planning activity builds its own catalog; admission decides on
//     that catalog's snapshot, before any cap is checked. A planning
//     activity that can start work reads its registry sources once
//     ([Runtime.RegisterRegistry], [RegistryUse], [RegistryTools]); a
//     finalizing one reads nothing.
//   - A call accepted to a registry tool keeps the contract the step read
//     (definition, pagination partner, registration token): confirmation,
//     decoding, validation, restore and the registry call use it, never
//     the registry's current catalog (docs/catalogs.md).
//   - A batch of calls is admitted whole or rejected whole.
//   - A suspended run (confirmation, clarification) ends its workflow with a
//     [RunSuspension] checkpoint; [Runtime.Continue] starts a continuation.
//     Nothing waits in memory, and time spent suspended does not count
//     against budgets.
//   - Server data never reaches a model request; injected fields never
//     appear in a schema a model sees, and a model never sets one.
//   - A model's output is bounded ([RunPolicy.ModelOutput]) inside the
//     planning activity, before anything of it is recorded.
//   - Each admitted call's payload is parsed once ([toolcall.Canonicalize]);
//     from then on the canonical payload is the only one: the transcript,
//     events, confirmation prompts and executors all see it.
//   - A confirmation decision answers one call and the payload digest its
//     prompt showed, once.
//   - Message metadata under "quiver." is honoured only when the runtime or
//     its adapters wrote it.
//
// One call's validation, injection, execution and shaping is the
// tool-call pipeline, [toolcall.Run], which the MCP server runs too; the
// execute activity runs it and adds the result hint.
//
// docs/security.md maps each guarantee to its tests.
package runtime
