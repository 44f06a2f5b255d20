// Package boltstore is the runtime's embedded durable [runtime.Store]: one
// bbolt file holding session transcripts and suspended runs' checkpoints,
// so that both outlive the process.
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
// several processes sharing suspended runs need a networked store
// (runtime/redisstore).
//
// # Layout
//
// Buckets, keys and values:
//
//	meta         "layout" → "1": this package's layout version
//	sessions     session id → runtime.MarshalSession record
//	checkpoints  run id → runtime.MarshalCheckpoint record
//
// Every record is written through the runtime's encoding
// ([runtime.MarshalSession], [runtime.MarshalCheckpoint]) and read through
// its decoding, so a record over [runtime.MaxRecordBytes] is refused
// before anything is written and a record of another format is refused
// with [runtime.ErrUnknownRecordFormat], never misread. A refused record
// stays in the file for the release that wrote it: Take of it fails and
// leaves it there.
//
// # Transactions
//
// Every write is durable when it returns (bbolt syncs each commit). Save
// compares the stored version and writes in one write transaction; Take
// reads and deletes the checkpoint in one, so of concurrent takers exactly
// one gets it; Expire finds and deletes expired checkpoints in one. Load
// and List read in read-only transactions; List decodes every checkpoint
// (the store keeps no index: suspended runs are few).
package boltstore
