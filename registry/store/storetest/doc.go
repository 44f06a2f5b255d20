// Package storetest is the conformance suite of [store.Store]: every
// implementation runs it, unchanged, from its own tests.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Factory{
//			Open: func(t *testing.T, clock func() time.Time) store.Store { ... },
//		})
//	}
//
// One subtest checks one rule of the interface's documentation, with exact
// states, outcomes and errors (errors.Is on the store's sentinels). Stores
// run on a [Clock] the suite advances, so lease expiry is tested without
// sleeping. Subtests run in parallel, each on a store of its own.
//
// The suite also holds the choices the interface leaves open, so that every
// implementation makes them alike (see registry/store/boltstore's package
// documentation): a lease past its expiry is not live before it is ended; a
// lease joining the active registration while a replacement is pending
// joins it draining; a pending lease drained before its registration
// activates stays draining; Changes reports a reset with no changes, and
// an after beyond the current revision is a reset too; AcceptCall
// keeps a caller's AcceptedAt and stamps the store's clock otherwise.
package storetest
