package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// Factory makes the stores the suite runs on.
type Factory struct {
	// Open returns a new, empty store whose clock is clock. It is called
	// from parallel subtests; the store is the factory's to close (with
	// t.Cleanup).
	Open func(t *testing.T, clock func() time.Time) store.Store
	// Reopen closes s and opens the same data again, with the same clock;
	// nil when the store cannot, which skips the reopen subtest.
	Reopen func(t *testing.T, s store.Store) store.Store
	// ChangeLogLimit is how many changes the stores Open returns keep; 0
	// skips the subtest of Changes' reset. Keep it small (10 or so): the
	// subtest makes that many changes.
	ChangeLogLimit int
}

// Run runs the conformance suite on the stores f makes.
func Run(t *testing.T, f Factory) {
	if f.Open == nil {
		t.Fatal("storetest: Factory.Open is nil")
	}
	for _, c := range suite {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(newHarness(t, f))
		})
	}
}

// suite lists the subtests, one rule each.
var suite = []struct {
	name string
	run  func(h *harness)
}{
	{"RegisterCreates", testRegisterCreates},
	{"RegisterJoins", testRegisterJoins},
	{"RegisterRevisionConflict", testRevisionConflict},
	{"RegisterStagesReplacement", testStageReplacement},
	{"ReplacementActivatesOnLastRelease", testActivationOnRelease},
	{"ReplacementActivatesOnExpiry", testActivationOnExpiry},
	{"ReplacementAtOnceWithoutLiveLease", testImmediateReplacement},
	{"ReplacementPending", testReplacementPending},
	{"ActivationSettlesOldTokenCalls", testOldTokenCallsNotAdmitted},
	{"RenewExtendsByTTL", testRenew},
	{"RenewAll", testRenewAll},
	{"Drain", testDrain},
	{"GoneLease", testGoneLease},
	{"ReleaseSettlesPublishedUnknown", testReleaseSettlesUnknown},
	{"ExpirySettlesPublishedUnknown", testExpirySettlesUnknown},
	{"Unregister", testUnregister},
	{"ReturnCall", testReturnCall},
	{"AcceptIdempotent", testAcceptIdempotent},
	{"AcceptAdmission", testAdmissionConflict},
	{"CallScopes", testCallScopes},
	{"AcceptAssignTo", testAssignTo},
	{"PublishCall", testPublish},
	{"PublishAfterReplacement", testPublishAfterReplacement},
	{"SettleRules", testSettleRules},
	{"FailureKind", testFailureKind},
	{"CatalogRevision", testCatalogRevision},
	{"ChangesReset", testChangesReset},
	{"UnsettledOldestFirst", testUnsettledOrder},
	{"PurgeSettled", testPurgeSettled},
	{"ForgetSettled", testForgetSettled},
	{"Concurrent", testConcurrent},
	{"Reopen", testReopen},
}

// start is when every subtest's clock starts; its nanoseconds check that
// times keep their precision.
var start = time.Date(2030, 1, 2, 3, 4, 5, 123456789, time.UTC)

// ttl is the lease TTL of the fixtures.
const ttl = 30 * time.Second

// harness is one subtest's store and clock.
type harness struct {
	t     *testing.T
	f     Factory
	clock *Clock
	s     store.Store
	ctx   context.Context
}

func newHarness(t *testing.T, f Factory) *harness {
	clock := NewClock(start)
	return &harness{t: t, f: f, clock: clock, s: f.Open(t, clock.Now), ctx: t.Context()}
}

// now reads the subtest's clock.
func (h *harness) now() time.Time { return h.clock.Now() }

// advance moves the subtest's clock.
func (h *harness) advance(d time.Duration) { h.clock.Advance(d) }
