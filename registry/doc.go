// Package registry is the tool registry's client side: Client, the
// Goa-generated service client (registry/gen/registry) with an API key and
// exact JSON numbers, per-request timeout, retries of what is safe to
// repeat, API version and consumer settings (ClientOption); Client.Resolve,
// a consumer's conditional read of its sources through its federation
// globs; and Serve, the provider SDK that publishes a toolset's full
// ToolSchemas(), keeps its lease, runs the calls routed to it and drains
// gracefully; an executor's failure crosses to the consumer with its
// message and, when its error is FailureKinded, its kind and recovery
// (FeatureFailureKind). The service itself is registry/server, its
// stores registry/store; the API is designed in registry/design (`go
// generate ./registry/...` regenerates registry/gen). docs/registry.md is
// the operator's and the caller's guide.
//
// Invariants:
//   - Serve posts every outcome until the registry records it; it never
//     runs a call twice (the registry hands each call to one lease once).
//   - A graceful stop drains: no new calls, calls in hand finish, the lease
//     is released.
//   - The client retries only reads and CallResolvedTool (idempotent by its
//     call id), and never a provider's call stream, which no request
//     timeout bounds.
package registry
