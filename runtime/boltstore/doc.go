// Package boltstore is the runtime's embedded durable [runtime.Store]: one
// bbolt file holding session transcripts, suspended runs' checkpoints and
// the run log (every event of every run, [Store.RunLog]), so that all
// three outlive the process.
//
//	s, err := boltstore.Open(filepath.Join(dataDir, boltstore.FileName))
//	...
//	rt, err := runtime.New(runtime.WithStore(s), ...)
//
// A run that suspends for a confirmation is then continued by the next
// process to open the file: [runtime.Runtime.ListSuspended] lists it and
// [runtime.Runtime.Continue] resumes it.
//
// # One file per process, apart from the registry's
//
// bbolt locks its file: one process at a time has it open, and a second
// Open fails with [ErrInUse] once the open timeout ([WithOpenTimeout]) has
// passed. The runtime's file is [FileName] (runs.db) in a data folder; the
// registry's embedded store (registry/store/boltstore) keeps registry.db
// in the same folder. They are separate files because the registry and
// the runtime may run in different processes, and each must be able to
// hold its own lock. Open refuses a file holding anything but this
// package's buckets, such as registry.db given by mistake.
//
// Several runtimes of one process share the store by sharing the *Store;
// several processes sharing suspended runs, or following each other's
// runs in the run log, need a networked store (runtime/redisstore). For
// the same reason the run log's Wait is woken in-process, by each append
// through the *Store: no other process can append to the file.
//
// # Layout
//
// Buckets, keys and values:
//
//	meta         "layout" → "2": this package's layout version
//	sessions     session id → runtime.MarshalSession record
//	checkpoints  run id → runtime.MarshalCheckpoint record
//	runs         run id → the run's info (runtime.RunInfo) as JSON, with
//	             a "format" field (runtime.RecordFormat)
//	run_events   run id → a bucket of the run's events:
//	             sequence number (8 bytes, big-endian) → runtime.MarshalEvent record
//	run_leases   owner → the end of its lease, RFC 3339 with nanoseconds
//
// Layout 1 had meta, sessions and checkpoints only; Open migrates a
// layout-1 file by adding the run log's buckets and writing layout "2",
// leaving sessions and checkpoints as they are. A file of any other
// layout is refused (a release before the run log refuses layout 2).
//
// Every record is written through the runtime's encoding
// ([runtime.MarshalSession], [runtime.MarshalCheckpoint],
// [runtime.MarshalEvent]) and read through its decoding, so a record over
// [runtime.MaxRecordBytes] is refused before anything is written and a
// record of another format is refused with
// [runtime.ErrUnknownRecordFormat], never misread; a run's info is
// refused the same way. A refused record stays in the file for the
// release that wrote it: Take of it fails and leaves it there.
//
// # Transactions
//
// Every write is durable when it returns (bbolt syncs each commit). Save
// compares the stored version and writes in one write transaction; Take
// reads and deletes the checkpoint in one, so of concurrent takers exactly
// one gets it; Expire finds and deletes expired checkpoints in one. Load
// and List read in read-only transactions; List decodes every checkpoint
// (the store keeps no index: suspended runs are few).
//
// The run log's Append reads the run's info, applies the rules
// ([runtime.PlanAppend]) and writes the events and the info in one write
// transaction: all or none, and of concurrent writers of one sequence
// number exactly one wins. Its Expire finds old runs and deletes their
// info and events in one. Read seeks the run's events from a cursor; Runs
// and Stale decode every run's info (no index: runs are expired after
// their retention, [runtime.WithRunLogRetention]).
package boltstore
