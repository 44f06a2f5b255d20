// Package bench measures the registry end to end in one process: a registry
// on the embedded store on a loopback port, one provider served with
// registry.Serve, and consumers calling its tool through CallResolvedTool;
// beside it, the peer: the same executor behind a plain net/http JSON
// handler, driven with the same concurrency, so that the difference is what
// the registry costs over a direct HTTP call. `quiver bench registry` runs
// it and prints the figures; BenchmarkRegistryCall runs the registry path
// under `go test -bench` for profiles.
//
// Invariants:
//   - Every call has a call id of its own; a call counts as lost unless it
//     came back ok with the result its payload asks for, and as duplicated
//     when the executor ran its id more than once.
//   - Nothing of the measured paths is stubbed: the registry path writes
//     and syncs the store as a deployed registry does.
package bench
