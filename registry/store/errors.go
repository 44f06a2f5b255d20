package store

import "errors"

// Errors callers branch on. Implementations wrap them with detail.
var (
	// ErrUnknownToolset: no registration under the toolset's name.
	ErrUnknownToolset = errors.New("store: unknown toolset")
	// ErrRevisionConflict: the revision is registered with another
	// fingerprint.
	ErrRevisionConflict = errors.New("store: revision registered with another fingerprint")
	// ErrReplacementPending: another replacement of the toolset waits for
	// the active registration to drain.
	ErrReplacementPending = errors.New("store: another replacement is pending")
	// ErrLeaseGone: the lease ended (released, expired, unregistered) or is
	// not usable for what was asked.
	ErrLeaseGone = errors.New("store: lease gone")
	// ErrAdmissionConflict: the call's token is not the active
	// registration's.
	ErrAdmissionConflict = errors.New("store: admission conflict")
	// ErrCallIDConflict: the call id names another call.
	ErrCallIDConflict = errors.New("store: call id used by another call")
	// ErrWrongLease: the call was not published to that lease.
	ErrWrongLease = errors.New("store: call published to another lease")
	// ErrUnknownCall: no record of the call.
	ErrUnknownCall = errors.New("store: unknown call")
)
