// Package runtimetest is the runtime's conformance suite for engines: the
// rules of a run that an engine could break — a run's tool calls and its
// events, confirmations and clarifications suspending a run and
// runtime.Runtime.Continue resuming it (also in a second runtime on the
// same stores), time budgets and tool and planning timeouts, planning
// retries, caps and recovery turns, terminal and bookkeeping tools,
// bounded results, call-tool mode, cancellation, sessions saved after a
// run, agents run as tools in child workflows, and the run log a follower
// reads. [Run] runs them all
// on the engine a [NewEngine] makes: the root module runs it on
// engine/inmem (inmem_test.go), the Temporal module on engine/temporal,
// the same tests on both.
//
// It owns those tests and their fixture, and uses only the root module's
// public API. The runtime's tests that need its internals, a fake clock
// or one engine's internals stay in package runtime.
//
// Invariants of every test, so that it holds on a durable engine (real
// time, tens of milliseconds per workflow task or activity, replayed
// workflows, activities on other goroutines):
//   - it runs in parallel with the others and makes each runtime with an
//     engine of its own ([NewEngine]; a test of two runtimes sharing
//     stores calls it twice);
//   - it asserts outcomes and events, never durations; its time budgets
//     and timeouts are real and short (a few hundred milliseconds) with
//     generous margins;
//   - it reads a run's events from the run log once the run has ended or
//     suspended, or from a subscriber only where it compares the two
//     (runtime.Runtime.Subscribe is synchronous with the run);
//   - state shared between an executor, a model script or a planner and
//     the test is guarded (a mutex or an atomic), since activities may run
//     on other goroutines with no other ordering the race detector sees;
//   - nothing assumes one engine: no type assertion on an engine, no
//     engine option, no engine-specific skip.
package runtimetest
