// Package server is the tool registry service: it implements the
// Goa-generated API (registry/gen) on a store.Store — registrations and
// leases, the catalog with its revision and change feed, catalog search with
// the discovery core, and CallResolvedTool, which validates a call, checks
// its registration token before publication, routes it to one healthy
// provider's stream and waits for its outcome. Authentication maps API keys
// to roles (Keys). docs/registry.md has the call-state table this package
// implements.
//
// Invariants:
//   - A call is published (durably, in the store) before its frame is
//     written to a provider's stream, and never published twice: a
//     published call whose provider ends settles as outcome_unknown; one
//     whose frame was never written goes back to accepted.
//   - A token names one registration: Token(toolset, fingerprint,
//     revision) under TokenProtocol.
//   - A call id is scoped to the name of the key that made the call: the
//     call is recorded under store.ScopedCallID(key name, call id), which
//     its provider is handed and posts by, and a consumer reaches only its
//     own key's calls — another key's read or retry of the id answers as
//     for an unknown id. An admin key reads every scope's call
//     (docs/registry.md, "Call ownership").
//   - Every request but the probes and the OpenAPI document is
//     authenticated when keys are configured, and its role checked, from
//     its headers alone, before its body is read (frontDoor); a registry
//     without keys answers only loopback Hosts and same-origin requests.
package server
