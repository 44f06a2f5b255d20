// Package redisstore is [runtime.Store] on Redis: the session transcripts
// and the checkpoints of suspended runs shared by every runtime process on
// one Redis, so that a run suspended in one process is continued in
// another, once.
//
//	s, err := redisstore.Open(ctx, "redis://redis.internal:6379/0")
//	...
//	defer s.Close()
//	rt, err := runtime.New(runtime.WithStore(s), ...)
//
// A [*Store] is its own [runtime.SessionStore] and
// [runtime.SuspensionStore], and passes the conformance suite
// runtime/storetest. It keeps nothing in the process.
//
// # Atomicity
//
// Every write that must decide on what is stored is one Lua script (the
// lua/*.lua files, each commented), and scripts run one at a time in
// Redis: Save compares the stored version and writes in one step (one of
// concurrent saves over one version wins, the others fail wrapping
// [runtime.ErrSessionConflict]); Take reads and deletes in one step (of
// concurrent Continue calls on one run, in any process, one gets the
// checkpoint, the others fail wrapping [runtime.ErrNotSuspended]); Expire
// removes and returns in one step (each expired checkpoint is reported
// once, however many processes expire at once). List is one read-only
// script, so it sees every checkpoint at one instant. Scripts never
// decode a record: each is stored beside the fields the scripts compare.
//
// go-redis sends a command again when its connection broke before the
// reply. Save, Take and Expire carry a random nonce of the call: the same
// script run again answers as its first run did (the save succeeded; the
// take returns the checkpoint it took, kept a minute under the run's
// "taken" key; the expiry reports the checkpoints it removed, kept a
// minute under its "expired" key). Put run twice writes the same. Load,
// List and Delete are reads or idempotent.
//
// The store needs Redis 7.0 or later (List runs its script with
// EVALSHA_RO).
//
// # Durability: run Redis with appendfsync always
//
// A write is as durable as Redis is configured to make it. An approval
// waits in its checkpoint: with appendonly yes and appendfsync always,
// Redis writes each command to its append-only file and syncs it before
// it answers, so a checkpoint or transcript whose Put or Save returned
// survives a crash of Redis or of its machine, and a run taken is not
// continued twice after a restart. With everysec a crash loses up to a
// second of writes (a suspended run lost, or a continued one back); with
// no persistence, everything. Replication is asynchronous: a failover
// may lose the last writes.
//
// # Layout
//
// Every key is under the prefix ([WithPrefix], default "quiver:runtime:").
// Runtimes that continue each other's runs use one prefix; give each
// deployment (or test) its own. On Redis Cluster the prefix must be a hash
// tag, "{quiver:runtime}:", so that every key is in one slot: List and
// Expire reach checkpoint keys built from the prefix.
//
//	format            string: the key layout version, "1"
//	session:<id>      hash: one session. format (runtime.RecordFormat),
//	                  version (decimal, the one in the record), record
//	                  (runtime.MarshalSession's bytes), nonce (of the
//	                  save that wrote it)
//	checkpoint:<run>  hash: one suspended run. format, record
//	                  (runtime.MarshalCheckpoint's bytes, State
//	                  included), expires (its ExpiresAt as a time key, ""
//	                  for never)
//	suspended         sorted set: the run ids of the checkpoints, scored
//	                  by suspension time (Unix ms); List sorts exactly
//	                  with runtime.SortCheckpoints
//	expiry            sorted set: "<time key>:<run id>" scored 0, the
//	                  checkpoints that expire, in expiry order (by member)
//	taken:<run>       hash: {nonce, record} of the last take of the run,
//	                  kept one minute
//	expired:<nonce>   list: the records one Expire removed, kept one
//	                  minute
//
// A time key is 21 digits, Unix seconds plus 10^11 then nanoseconds, so
// members sort as times and keep nanoseconds, which a score (a double)
// does not: a checkpoint expires exactly when runtime.Expired says.
//
// # Records of another release
//
// Every record goes through runtime.Marshal* and runtime.Unmarshal*,
// which refuse a record of another format (wrapping
// [runtime.ErrUnknownRecordFormat]). A record whose hash says another
// format is refused without being changed: Load, Save, Take and List fail
// and leave it, Expire leaves it for the release that reads it. A record
// that claims this format but does not decode is an error too; Take and
// Expire have removed it by then (Expire reports the others first).
package redisstore
