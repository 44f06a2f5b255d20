// Package redisstore is [store.Store] on Redis: the registry's state shared
// by several registry processes.
//
//	s, err := redisstore.Open(ctx, "redis://redis.internal:6379/0")
//
// # Atomicity and time
//
// Every method is atomic. A write is one Lua script (EVALSHA, go-redis's
// [redis.Script]), so the call hot path (AcceptCall, PublishCall,
// ReturnCall, SettleCall) is one round trip a call, and no node reads,
// decides and writes apart: scripts run one at a time in Redis. Reads are
// one MULTI transaction or one read-only script. Nothing is kept in the Go
// process: Store values on the same prefix, in one process or many, see
// each other's writes at once. The scripts are the lua/*.lua files, each
// commented; lua/common.lua (and for the scripts that end leases,
// lua/lifecycle.lua) is prepended to each.
//
// The store's clock is the Redis server's: scripts read TIME, so leases
// expire and records are stamped on one clock whatever the clocks of the
// registry nodes. [WithClock] replaces it (tests): the script then gets the
// time as an argument.
//
// # Durability
//
// A write is as durable as Redis is configured to make it. With
// appendonly yes and appendfsync always, Redis writes a command to its
// append-only file and syncs it before it answers, so a write that
// returned survives a crash of Redis or of its machine: run Redis so for
// the store's durability rule ("durable when it returns"). With everysec a
// crash loses up to a second of writes; without persistence, everything.
// Replication is asynchronous: a failover may lose the last writes.
//
// A method whose context ends while its command is under way returns the
// context's error; the command may have run. go-redis sends a command
// again when its connection broke before the reply: every script may run
// twice (ids come from the caller, the first outcome wins), AcceptCall and
// PublishCall answer the second run as the first (created, published) by a
// nonce of the call, and Register, Release, ExpireLeases and Unregister
// answer what the second run did (the first run's effects are not
// reported again).
//
// # Layout
//
// Every key is under the prefix ([WithPrefix], default "quiver:registry:").
// On Redis Cluster the prefix must be a hash tag, "{quiver:registry}:", so
// that every key is in one slot: scripts reach keys built from the prefix
// (a call's, a lease's) beside the ones they declare.
//
//	format            string: the layout version, "1"
//	rev               string: the catalog revision
//	changes           sorted set: "revision:kind:toolset" scored by
//	                  revision, the most recent ones (WithChangeLogLimit)
//	active, pending   hash: toolset → registration (its record: the time
//	                  it was stored, 21 digits, then its JSON)
//	tokens            hash: toolset → {token, revision, fingerprint} of the
//	                  active registration, JSON: admitting a call reads
//	                  this, never the registration and its declaration
//	pending_tokens    hash: the same of the pending registration
//	leases            hash: lease id → lease (JSON, strings only), until
//	                  the lease ends
//	call:<id>         hash: a call's record: "rec" the fields the store
//	                  never changes (JSON, as the Go side wrote it), the
//	                  others one a field (state, lease, outcome, result,
//	                  error, error_kind, error_recovery, accepted,
//	                  published, settled; owner, which AcceptCall
//	                  compares, absent for the empty scope). <id> is the
//	                  scoped id (store.ScopedCallID)
//	unsettled         sorted set: accepted-at time + call id, scored 0 (so
//	                  ordered by time, then id), the calls not settled
//	settled           sorted set: settled-at time + call id, scored 0, for
//	                  PurgeSettled
//	published:<lease> set: the unsettled calls published to a lease, for
//	                  Release and ExpireLeases
//	accepted:<toolset> set: the toolset's accepted calls, for replacements
//	                  and Unregister
//
// Times are 21 digits: seconds since 1970 plus 10^11 (12 digits), then
// nanoseconds (9 digits), so they sort as strings and keep nanoseconds,
// which a sorted set score (a double) does not. Scripts never decode and
// encode the JSON of registrations, payloads and results (cjson would
// reorder keys and round numbers); a call is a hash so that scripts change
// its state without touching its payload. Ended leases are deleted: a
// lease is live while its record exists and the store's clock has not
// passed its expiry.
//
// # Choices the interface leaves open
//
// The same as registry/store/boltstore's, checked by the same conformance
// suite:
//
//   - A lease past its expiry is not live (Renew, Drain and PublishCall
//     refuse it, AcceptCall does not assign to it, Catalog does not list
//     it) even before ExpireLeases or Register ends it.
//   - A replacement activates when no lease is left on the active
//     registration, expired ones included: ExpireLeases or Register ends
//     those first.
//   - A lease joining the active registration while a replacement is
//     pending joins it draining.
//   - Draining leases stay draining when their registration activates.
//   - Changes returns no changes with reset; an after beyond the current
//     revision is a reset too.
//   - AcceptCall keeps the caller's AcceptedAt, or stamps the store's clock
//     when it is zero; PublishedAt and SettledAt are the store's clock.
//   - The outcome of a call published to a lease past its expiry is
//     accepted until the lease is ended.
package redisstore
