package store

import (
	"context"
	"encoding/json"
	"time"
)

// Store keeps the registry's state. Every method is atomic, and every method
// that changes state returns only once the change is durable (an embedded
// store has synced it to disk; group commit shares one sync among
// concurrent writers, it never skips one).
//
// Implementations must pass the conformance suite in registry/store/storetest.
type Store interface {
	// Register joins, creates or stages the registration in.Registration
	// and gives the caller a lease on it:
	//   - no registration for the toolset: the new one becomes active, the
	//     lease active, the catalog revision grows (ChangeRegistered);
	//   - the active registration has the same token: the lease joins it,
	//     active — or draining, while a replacement is pending, so that a
	//     restarted replica of the old revision cannot hold the replacement
	//     back;
	//   - the active registration has the same revision and another
	//     fingerprint: ErrRevisionConflict;
	//   - a pending registration has the same token: the lease joins it,
	//     pending; a pending registration with another token:
	//     ErrReplacementPending;
	//   - otherwise the new registration becomes pending, the lease
	//     pending, and every live lease of the active registration starts
	//     draining (Effects.Draining lists them). When the last of them
	//     ends (Release, ExpireLeases) the pending registration becomes
	//     active (ChangeReplaced), its leases active, and the calls still
	//     accepted with the old token settle as OutcomeCallNotAdmitted.
	//     With no live lease on the active registration the replacement
	//     happens at once, in this call.
	// Leases past their expiry are ended first.
	Register(ctx context.Context, in RegisterInput) (Registered, error)
	// Renew extends a live lease by its TTL; ErrLeaseGone when it ended.
	Renew(ctx context.Context, leaseID string) (Lease, error)
	// Drain stops routing new calls to a live lease; ErrLeaseGone when it
	// ended.
	Drain(ctx context.Context, leaseID string) (Lease, error)
	// Release ends a lease: its published calls that have no outcome settle
	// as OutcomeUnknown; a pending replacement may become active. Releasing
	// a lease that ended already does nothing.
	Release(ctx context.Context, leaseID string) (Effects, error)
	// ExpireLeases ends every lease whose expiry has passed, as Release
	// does.
	ExpireLeases(ctx context.Context) (Effects, error)
	// RenewAll gives every lease not ended yet — past its expiry or not —
	// a full TTL from now, and returns them. A registry calls it when it
	// starts, before it expires anything: while it was down, no provider
	// could renew, and ending their leases then would settle the calls in
	// their hands as outcome_unknown although the providers are alive and
	// about to post.
	RenewAll(ctx context.Context) ([]Lease, error)
	// Unregister removes a toolset (active and pending registrations, their
	// leases): its accepted calls settle as OutcomeCallNotAdmitted, its
	// published ones as OutcomeUnknown (ChangeRemoved). ErrUnknownToolset
	// when nothing is registered under the name.
	Unregister(ctx context.Context, toolset string) (Effects, error)

	// Catalog reads the active registrations and every live lease in one
	// consistent read.
	Catalog(ctx context.Context) (Catalog, error)
	// Changes returns the changes after revision after, oldest first, and
	// the current revision. reset is true when changes after `after` were
	// dropped already (the store keeps the most recent ones only).
	Changes(ctx context.Context, after uint64) (changes []Change, revision uint64, reset bool, err error)

	// AcceptCall records a call, idempotently on its ID, which must be its
	// CallerID in its Owner's scope (ScopedCallID; CheckCall):
	//   - a record with the ID exists: the same owner, toolset, tool and
	//     payload digest return it (whatever its state); anything else is
	//     ErrCallIDConflict (records written before calls were scoped have
	//     the empty owner);
	//   - the toolset has no active registration: ErrUnknownToolset;
	//   - the call's token is not the active registration's token:
	//     ErrAdmissionConflict (nothing is recorded);
	//   - otherwise the call is recorded as accepted — or, when assignTo
	//     names a live active lease of the call's registration, as
	//     published to it in the same write.
	// created reports whether this call wrote the record.
	AcceptCall(ctx context.Context, call Call, assignTo string) (rec Call, created bool, err error)
	// PublishCall hands an accepted call to a lease, durably, before its
	// frame is written; published reports whether this call did (only then
	// may the caller write the frame: a call offered twice, or taken again
	// after a node died, is published once). A call accepted with a token
	// that is no longer the active registration's settles as
	// OutcomeCallNotAdmitted instead (the returned record says so).
	// ErrLeaseGone when the lease is not live, active and on the call's
	// registration. A call that is not accepted any more (published,
	// settled) is returned as it is, published false.
	PublishCall(ctx context.Context, callID, leaseID string) (rec Call, published bool, err error)
	// ReturnCall takes back a call published to leaseID whose frame was
	// never written (the stream ended first): the call is accepted again
	// and can be routed elsewhere. Its caller must know the frame was not
	// written; a registry that crashed after publishing cannot, and its
	// calls stay published. A call in any other state, or published to
	// another lease, is returned as it is. ErrUnknownCall when there is no
	// record.
	ReturnCall(ctx context.Context, callID, leaseID string) (Call, error)
	// SettleCall records a call's outcome. The first outcome wins: a call
	// settled already is returned as it is, with no error.
	//   - OutcomeOK, OutcomeToolError: the call must be published to
	//     s.LeaseID (else ErrWrongLease);
	//   - OutcomeCallNotAdmitted: the call must be accepted (else it is
	//     returned as it is);
	//   - OutcomeUnknown: the call must be published (else returned as it
	//     is).
	// ErrUnknownCall when there is no record.
	SettleCall(ctx context.Context, s Settlement) (Call, error)
	// GetCall reads a call's record; ErrUnknownCall when there is none.
	GetCall(ctx context.Context, callID string) (Call, error)
	// Unsettled returns every call accepted or published and not settled,
	// oldest first: what a restarted registry routes again or waits for.
	Unsettled(ctx context.Context) ([]Call, error)
	// PurgeSettled deletes the records of calls settled before t and
	// returns how many it deleted.
	PurgeSettled(ctx context.Context, before time.Time) (int, error)
	// ForgetSettled forgets what settled calls carried and keeps their
	// records (state, outcome, digest) until PurgeSettled: the result and
	// error message of calls settled before results (ResultForgotten), the
	// payload of calls settled before payloads (PayloadForgotten). A
	// failure's ErrorKind and ErrorRecovery are kept with the outcome: they
	// classify the failure in the toolset's vocabulary (an identifier, an
	// enum) and hold none of the data a payload, result or message may, which
	// is what the result retention bounds. A zero
	// time forgets nothing of its kind. It is incremental: each kind
	// resumes after the last call it forgot, so a pass costs the calls
	// settled since the previous one. It returns how many records changed.
	ForgetSettled(ctx context.Context, results, payloads time.Time) (int, error)

	// Close releases the store.
	Close() error
}

// RegisterInput is a provider's registration.
type RegisterInput struct {
	// Registration is the registration as published; its Token is set by
	// the caller (see registry/server's token derivation).
	Registration Registration
	// Provider names the provider instance, for logs.
	Provider string
	// MaxInFlight is how many calls the instance takes at once (> 0).
	MaxInFlight int
	// TTL is how long the lease lasts without renewal (> 0).
	TTL time.Duration
}

// Registered is the answer to Register.
type Registered struct {
	// Lease is the caller's new lease.
	Lease Lease
	// Registration is the registration the lease is on.
	Registration Registration
	// Effects are the changes Register caused beyond the lease.
	Effects Effects
}

// Registration is one published revision of a toolset.
type Registration struct {
	Toolset     string   `json:"toolset"`
	Fingerprint string   `json:"fingerprint"`
	Revision    string   `json:"revision"`
	Token       string   `json:"token"`
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	// Tools are the bare tool names, sorted.
	Tools []string `json:"tools"`
	// Declaration is the published contract.ToolsetDeclaration, as JSON.
	Declaration  json.RawMessage `json:"declaration"`
	RegisteredAt time.Time       `json:"registered_at"`
}

// LeaseState is where a lease stands.
type LeaseState string

// The lease states.
const (
	// LeaseActive: the lease's registration is active; calls are routed to it.
	LeaseActive LeaseState = "active"
	// LeasePending: the lease's registration waits for the active one's
	// leases to drain.
	LeasePending LeaseState = "pending"
	// LeaseDraining: no new calls; calls in hand may still settle.
	LeaseDraining LeaseState = "draining"
)

// Lease is one provider instance's hold on a registration.
type Lease struct {
	ID          string        `json:"id"`
	Toolset     string        `json:"toolset"`
	Token       string        `json:"token"`
	Provider    string        `json:"provider,omitempty"`
	MaxInFlight int           `json:"max_in_flight"`
	State       LeaseState    `json:"state"`
	TTL         time.Duration `json:"ttl"`
	ExpiresAt   time.Time     `json:"expires_at"`
}

// Effects are what a state change did besides its own record: the server
// notifies waiters and providers from them.
type Effects struct {
	// Activated are registrations that became active.
	Activated []Registration
	// Removed are toolsets removed from the catalog.
	Removed []string
	// Draining are leases that started draining (their providers are told).
	Draining []Lease
	// Ended are leases that ended.
	Ended []Lease
	// Settled are calls that got their outcome.
	Settled []Call
	// Revision is the catalog revision after the change (0 when the change
	// did not touch the catalog).
	Revision uint64
}

// Catalog is one consistent read of the active registrations.
type Catalog struct {
	// Revision grows with every change of the set of active registrations.
	Revision uint64
	// Registrations are the active registrations, sorted by toolset.
	Registrations []Registration
	// Leases are the live leases (active, pending and draining), sorted by
	// ID.
	Leases []Lease
}

// ChangeKind says what a catalog change did.
type ChangeKind string

// The change kinds.
const (
	ChangeRegistered ChangeKind = "registered"
	ChangeReplaced   ChangeKind = "replaced"
	ChangeRemoved    ChangeKind = "removed"
)

// Change is one change of the catalog.
type Change struct {
	Revision uint64     `json:"revision"`
	Toolset  string     `json:"toolset"`
	Kind     ChangeKind `json:"kind"`
}

// CallState is where a call stands.
type CallState string

// The call states.
const (
	CallAccepted  CallState = "accepted"
	CallPublished CallState = "published"
	CallSettled   CallState = "settled"
)

// Outcome is a settled call's outcome.
type Outcome string

// The outcomes.
const (
	// OutcomeOK: the provider returned a result.
	OutcomeOK Outcome = "ok"
	// OutcomeToolError: the provider's tool failed.
	OutcomeToolError Outcome = "tool_error"
	// OutcomeCallNotAdmitted: the call was never handed to a provider.
	OutcomeCallNotAdmitted Outcome = "call_not_admitted"
	// OutcomeUnknown: the call was handed to a provider that ended before
	// posting its outcome.
	OutcomeUnknown Outcome = "outcome_unknown"
)

// Call is a call's record.
type Call struct {
	// ID is the registry's id of the call, the key of its record: the
	// caller's id in its owner's scope (ScopedCallID). A provider is handed
	// it and posts the call's outcome by it.
	ID string `json:"id"`
	// Owner is the name of the API key that made the call, the call's
	// scope: only a caller with a key of that name reaches the call by its
	// caller id. Empty in a keyless registry, and for records written
	// before calls were scoped: those are the empty scope's.
	Owner string `json:"owner,omitempty"`
	// CallerID is the id the caller chose (ID when empty: the empty
	// scope's calls are recorded under their caller's id).
	CallerID string `json:"caller_id,omitempty"`
	Toolset  string `json:"toolset"`
	Tool     string `json:"tool"`
	RunID    string `json:"run_id,omitempty"`
	Token    string `json:"token"`
	// Payload is the canonical payload; Digest identifies the request for
	// idempotency (versioned: "sha256v2:<hex>" of the canonical payload,
	// "sha256:<hex>" for calls recorded by earlier releases).
	Payload json.RawMessage `json:"payload,omitempty"`
	Digest  string          `json:"digest"`
	State   CallState       `json:"state"`
	// LeaseID is the lease the call was published to.
	LeaseID string  `json:"lease_id,omitempty"`
	Outcome Outcome `json:"outcome,omitempty"`
	// Result is the result of an OutcomeOK call.
	Result json.RawMessage `json:"result,omitempty"`
	// Error says why a settled call did not succeed.
	Error string `json:"error,omitempty"`
	// ErrorKind is the kind of a settled call's failure as its provider
	// posted it (tool_error, invalid_payload, a kind the toolset defines);
	// empty when none was posted. Kept for outcomes other than OutcomeOK,
	// like Error.
	ErrorKind string `json:"error_kind,omitempty"`
	// ErrorRecovery is what the failure asks of the model as its provider
	// posted it (correct_call, replan, finish); empty when none was posted.
	// Kept for outcomes other than OutcomeOK, like Error.
	ErrorRecovery string `json:"error_recovery,omitempty"`
	// ResultForgotten: the settled call's result and error message were
	// forgotten (ForgetSettled); its outcome, ErrorKind and ErrorRecovery
	// remain.
	ResultForgotten bool `json:"result_forgotten,omitempty"`
	// PayloadForgotten: the payload was forgotten; its digest remains, so
	// a retry is still matched against it.
	PayloadForgotten bool      `json:"payload_forgotten,omitempty"`
	AcceptedAt       time.Time `json:"accepted_at"`
	Deadline         time.Time `json:"deadline"`
	PublishedAt      time.Time `json:"published_at,omitzero"`
	SettledAt        time.Time `json:"settled_at,omitzero"`
}

// Settlement is an outcome to record.
type Settlement struct {
	CallID  string
	LeaseID string
	Outcome Outcome
	Result  json.RawMessage
	Error   string
	// ErrorKind and ErrorRecovery are the failure's kind and recovery as
	// the provider posted them (Call.ErrorKind, Call.ErrorRecovery); the
	// store keeps them for outcomes other than OutcomeOK, like Error.
	ErrorKind     string `json:"error_kind,omitempty"`
	ErrorRecovery string `json:"error_recovery,omitempty"`
}
