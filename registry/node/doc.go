// Package node assembles a registry node, the one way the module does: the
// store (and bus) opened by name (registry/stores), a registry/server
// Service on it, and the HTTP server every node is served with
// (server.HTTPServer) on a listener — a free loopback port unless the
// caller gives an address or a listener of its own — over TLS when asked.
// Start returns the running node; Close stops it in the order that lets
// nothing hold the stop back, Abort stops it as a crash would.
//
// `quiver registry serve` and `quiver serve` (cmd/quiver), the registry
// benchmark (registry/bench), the tests' registries (internal/registrytest,
// registry/faulttest) and the registry example all start their nodes here;
// what differs between them is a field of Config, not a copy of the
// assembly.
//
// It is server-side: the client package registry, which the runtime
// imports, never imports it (a guard test in internal/sourceguard checks),
// so an application calling a registry links no store and no server.
//
// Invariants:
//   - The node owns what it opened or was given: the store and bus, the
//     service, the listener. Start closes them all when it fails; Close
//     and Abort close them all, once (both are idempotent).
//   - Close stops the service first (waiting consumers answered, provider
//     streams ended), then the HTTP server, given ShutdownTimeout to finish
//     the requests in flight, then the store: no request runs on a closed
//     store unless it outlived ShutdownTimeout.
//   - The node serves only once the service is ready: a client that
//     connects earlier is refused, not queued (the listener is opened
//     after the store, unless the caller passed one).
package node
