// Package redisstore is [runtime.Store] on Redis: the session transcripts,
// the checkpoints of suspended runs and the run log shared by every
// runtime process on one Redis, so that a run suspended in one process is
// continued in another, once, and a run is followed from any process.
//
//	s, err := redisstore.Open(ctx, "redis://redis.internal:6379/0")
//	...
//	defer s.Close()
//	rt, err := runtime.New(runtime.WithStore(s), ...)
//
// A [*Store] is its own [runtime.SessionStore] and
// [runtime.SuspensionStore]; [Store.RunLog] is its [runtime.RunLog]. They
// pass the conformance suites of runtime/storetest. It keeps nothing in
// the process.
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
// The run log's Append is one script too: it applies runtime.PlanAppend's
// rules to the stored run — an event at a stored seq compared byte for
// byte with the stored one (equal: skipped; else ErrEventConflict), the
// first new one following the run's last and the others it
// (ErrEventGap), none after the run ended (ErrRunEnded) — before it
// writes anything, then writes every new event and the run's info and
// indexes: all or nothing, and of concurrent writers, in any process, one
// wins each seq. The status rule (runtime.StatusAfter) is split: the Go
// side passes, for each event, the status its type sets ("" for a type
// that keeps the run's), the script applies it to the stored status.
// Runs and Stale are read-only scripts; Expire removes and returns in one
// script (each expired run reported once). Read is one XRANGE, Wait
// XREAD BLOCK (half a second at a time, so that it sees its context done),
// Run one HMGET, Renew one SET.
//
// go-redis sends a command again when its connection broke before the
// reply. Save, Take and Expire carry a random nonce of the call: the same
// script run again answers as its first run did (the save succeeded; the
// take returns the checkpoint it took, kept a minute under the run's
// "taken" key; the expiry reports the checkpoints it removed, kept a
// minute under its "expired" key, and so does the run log's, under
// "expiredruns"). Put run twice writes the same. An Append run twice
// finds its events stored and skips them. Load, List, Delete and the run
// log's reads and Renew are reads or idempotent.
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
// may lose the last writes. Run Redis with maxmemory-policy noeviction:
// an evicted key loses a session, a checkpoint or part of a run, and an
// Append refuses a run whose stream and hash no longer agree.
//
// # Layout
//
// Every key is under the prefix ([WithPrefix], default "quiver:runtime:").
// Runtimes that continue each other's runs use one prefix; give each
// deployment (or test) its own. On Redis Cluster the prefix must be a hash
// tag, "{quiver:runtime}:", so that every key is in one slot: List and
// Expire reach checkpoint keys built from the prefix, and the run log's
// Runs, Stale and Expire reach run and lease keys so.
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
//	log:<run>         stream: the run's events, entry 0-<seq> for event
//	                  seq, one field e (runtime.MarshalEvent's bytes):
//	                  a reader outside this package follows a run with
//	                  XREAD BLOCK ms STREAMS <prefix>log:<run> 0-<cursor>
//	run:<run>         hash: the run's info. format (runtime.EventFormat),
//	                  status, owner, last (seq, decimal), session, agent,
//	                  parent (of its first event), started and updated
//	                  (times of its first and latest events, time keys)
//	runs              sorted set: "<updated time key>:<run id>" scored 0,
//	                  every run, by latest event (by member): Runs reads
//	                  it, Expire its range before the cut
//	running           set: the ids of the running runs, for Stale
//	sessionruns:<id>  set: the ids of the session's runs, for Runs of one
//	                  session
//	lease:<owner>     string: the time key until which owner holds its
//	                  lease; Stale compares it with its caller's now, and
//	                  the key vanishes a day after it (or after its
//	                  renewal, for a time already past)
//	expiredruns:<n>   list: the infos one run log Expire removed, kept
//	                  one minute
//
// A time key is 21 digits, Unix seconds plus 10^11 then nanoseconds, so
// members sort as times and keep nanoseconds, which a score (a double)
// does not: a checkpoint expires exactly when runtime.Expired says, a run
// exactly when its latest event is before the cut.
//
// The run log's keys are new in layout "1": they take names no key of
// the layout had, and change the meaning of none, so a prefix written by
// an earlier release is read as it is (it just has no run log yet), and
// an earlier release on a prefix this one wrote never reads or writes
// them. The layout stays "1"; it changes when a key it already has
// changes meaning.
//
// # Records of another release
//
// Every record goes through runtime.Marshal* and runtime.Unmarshal*,
// which refuse a record of another format (wrapping
// [runtime.ErrUnknownRecordFormat]). A record whose hash says another
// format is refused without being changed: Load, Save, Take and List fail
// and leave it, Expire leaves it for the release that reads it. A record
// that claims this format but does not decode is an error too; Take and
// Expire have removed it by then (Expire reports the others first). The
// run log's records carry their event format ("v", runtime.EventFormat),
// and a run's hash its format field: Read refuses a record of another
// format (runtime.UnmarshalEvent); Append, Run, Runs and Stale refuse a
// run whose hash says another format, and Expire leaves it.
package redisstore
