// Package storetest is the conformance suite of the runtime's stores
// ([runtime.SessionStore], [runtime.SuspensionStore]): [Run] against any
// implementation, [RunShared] against two stores on one backend, and
// [RunRuntime] runs whole runs on two runtimes sharing a backend. The
// memory store, runtime/boltstore and runtime/redisstore all run it.
package storetest
