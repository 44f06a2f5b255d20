// Package engine is the contract between the runtime and what executes its
// runs: workflows whose code is deterministic, activities that do all I/O
// with timeouts and retries, child workflows, timers and cancellation.
// engine/inmem is the default implementation; engine/temporal, a Go module
// of its own, satisfies the same contract on Temporal, and
// runtime/runtimetest checks both with the same conformance suite.
//
// Inputs and outputs cross the contract as JSON (json.RawMessage), as they
// would cross a durable engine's persistence; the generic helpers (Workflow,
// Activity, ExecuteActivity, ExecuteChild) keep callers typed. Workflow code
// must read time only through WorkflowContext.Now, sleep only through Sleep,
// and reach the outside world only through activities, so that a durable
// engine can replay it.
package engine
