// Package registry is the tool registry's client side: [Client], the
// Goa-generated service client (registry/gen/registry) with an API key and
// exact JSON numbers, per-request timeout, retries of what is safe to
// repeat, API version and consumer settings ([ClientOption]); [Client.Resolve],
// a consumer's conditional read of its sources through its federation
// globs; and [Serve], the provider SDK that publishes a toolset's full
// ToolSchemas(), keeps its lease, runs the calls routed to it and drains
// gracefully, running calls with the same [toolcall.Executor] that serves
// the toolset in process; an executor's failure crosses to the consumer
// with its message, kind and recovery ([FeatureFailureKind]). [Reader] is the
// one reader of a registry's catalog (the runtime's planning steps and
// mcp.Registry read through it) and [CallTool] a registry call for a
// toolcall executor. The service itself is registry/server, its
// stores registry/store; the API is designed in registry/design (`go
// generate ./registry/...` regenerates registry/gen). docs/registry.md is
// the operator's and the caller's guide.
//
// Migration: [Serve] took a registry.Executor of registry.Call values and a
// raw JSON result; it takes a [toolcall.Executor] (runtime.ToolExecutor):
// call.ID is call.Meta.ToolCallID, call.RunID call.Meta.RunID, call.Tool
// call.Ident.Tool(), and the result is a *toolcall.Result; a failure of a
// kind of its own is a *toolcall.Failure ([toolcall.Fail]).
// runtime.CallRegistry is [CallTool].
//
// Invariants:
//   - [Serve] posts every outcome until the registry records it; it never
//     runs a call twice (the registry hands each call to one lease once).
//   - A graceful stop drains: no new calls, calls in hand finish, the lease
//     is released.
//   - The client retries only reads and CallResolvedTool (idempotent by its
//     call id), and never a provider's call stream, which no request
//     timeout bounds.
package registry
