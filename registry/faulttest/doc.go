// Package faulttest tests the tool registry under faults, with real
// processes killed abruptly. The test binary runs again as a registry
// (registry/server on registry/store/boltstore, on a given loopback address
// and data folder — or, given a Redis URL and key prefix, on
// registry/store/redisstore and registry/server/redisbus: one node of the
// registry every process on that Redis and prefix runs) or as a provider
// (registry.Serve of registrytest.Echo at a given revision), chosen by
// QUIVER_FAULTTEST_ROLE (see TestMain); the tests SIGKILL those processes,
// restart a registry on its data (its folder, or the same Redis) and port,
// replace a provider's revision while calls run, blackhole, stall or cut
// the connections that carry providers' call streams (a listener the test
// controls, in front of a registry in the test's process), restart Redis
// under running nodes, and lose the reply of one Redis write (a proxy in
// front of Redis).
//
// Every provider appends each call id it starts to an execution log
// (O_APPEND, fsync, then it runs the call), and every test checks from
// those logs that no call ran twice, on one provider or across several,
// and that every call that ended ok ran exactly once. Consumers retry with
// the same call id and token through transport errors and unavailable
// until they read a final answer (ok, tool_error, call_not_admitted,
// outcome_unknown, admission_conflict); given several nodes, they send the
// retry after a transport error to the next one. Each test says which
// answers it expects, and whether an outcome_unknown read at a consumer's
// deadline is final for it.
//
// The one-node scenarios run on both stores, as subtests "bolt" and
// "redis" (eachStore; each redis subtest has a redis-server of its own):
// a provider killed with calls in flight
// (TestProviderKilledWithCallsInFlight); the registry killed and restarted
// mid-load (TestRegistryKilledAndRestartedMidLoad); a provider replaced by
// a new revision during calls (TestProviderReplacedDuringCalls); a
// provider's stream blackholed then cut, or stalled then cut
// (TestStreamCutKeepsServingOnTheSameLease,
// TestStreamStalledThenCutRoutesUnwrittenCallsAgain). The scenarios of
// several nodes on Redis: a node killed and restarted under load while
// consumers call through it a provider on the other node
// (TestTwoNodesCallThroughAProviderOnTheOther); Redis killed and restarted
// under load with its append-only file (TestRedisRestartMidLoad). The
// other tests pin faults these scenarios ran into.
//
// The tests mostly wait (for processes, leases, deadlines), so TestMain
// runs 8 of them at once unless -parallel says otherwise. The package has
// tests only; redis-server must be on PATH (./scripts/test installs it).
// Run it with
//
//	go test -race ./registry/faulttest/
package faulttest
