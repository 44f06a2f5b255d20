// Package storebench measures what a durable runtime store adds to a run:
// a run that suspends at a confirmation and is continued, and a run that
// saves its session, on the memory store, the embedded store
// (runtime/boltstore) and Redis (runtime/redisstore, with appendfsync
// always), in one benchmark run
// so that their ratios are comparable (docs/benchmarks.md). It has no
// non-test code.
package storebench
