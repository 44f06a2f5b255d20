// Package faulttest tests the tool registry under faults, with real
// processes killed abruptly. The test binary runs again as a registry
// (registry/server on registry/store/boltstore, on a given loopback address
// and data folder) or as a provider (registry.Serve of registrytest.Echo at
// a given revision), chosen by QUIVER_FAULTTEST_ROLE (see TestMain); the
// tests SIGKILL those processes, restart the registry on its data folder
// and port, replace a provider's revision while calls run, and blackhole,
// stall or cut the connections that carry providers' call streams (a
// listener the test controls, in front of a registry in the test's
// process).
//
// Every provider appends each call id it starts to an execution log
// (O_APPEND, fsync, then it runs the call), and every test checks from
// those logs that no call ran twice, on one provider or across several,
// and that every call that ended ok ran exactly once. Consumers retry with
// the same call id and token through transport errors and unavailable
// until they read a final answer (ok, tool_error, call_not_admitted,
// outcome_unknown, admission_conflict); each test says which answers it
// expects, and whether an outcome_unknown read at a consumer's deadline is
// final for it.
//
// The scenarios: a provider killed with calls in flight
// (TestProviderKilledWithCallsInFlight); the registry killed and restarted
// mid-load (TestRegistryKilledAndRestartedMidLoad); a provider replaced by
// a new revision during calls (TestProviderReplacedDuringCalls); a
// provider's stream blackholed then cut, or stalled then cut
// (TestStreamCutKeepsServingOnTheSameLease,
// TestStreamStalledThenCutRoutesUnwrittenCallsAgain). The other tests
// pin faults these scenarios ran into.
//
// The package has tests only. Run it with
//
//	go test -race ./registry/faulttest/
package faulttest
