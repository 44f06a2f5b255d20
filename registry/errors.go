package registry

import (
	"errors"

	goa "goa.design/goa/v3/pkg"
)

// The registry's error names, as its API returns them (the "name" of the
// error body; [ErrorName] reads it from a client error). docs/registry.md
// says what a caller should do about each.
const (
	ErrUnauthorized        = "unauthorized"
	ErrForbidden           = "forbidden"
	ErrBadRequest          = "bad_request"
	ErrPayloadTooLarge     = "payload_too_large"
	ErrUnavailable         = "unavailable"
	ErrNotFound            = "not_found"
	ErrUnsupportedContract = "unsupported_contract"
	ErrInvalidDeclaration  = "invalid_declaration"
	ErrFingerprintMismatch = "fingerprint_mismatch"
	ErrRevisionConflict    = "revision_conflict"
	ErrReplacementPending  = "replacement_pending"
	ErrLeaseExpired        = "lease_expired"
	ErrWrongLease          = "wrong_lease"
	ErrUnknownToolset      = "unknown_toolset"
	ErrUnknownTool         = "unknown_tool"
	ErrVersionMismatch     = "version_mismatch"
	ErrToolsetRemoved      = "toolset_removed"
	ErrValidation          = "validation_error"
	ErrAdmissionConflict   = "admission_conflict"
	ErrCallNotAdmitted     = "call_not_admitted"
	ErrOutcomeUnknown      = "outcome_unknown"
	ErrOverloaded          = "overloaded"
	ErrKeyLimit            = "key_limit"
	ErrCallIDConflict      = "call_id_conflict"
	ErrResultExpired       = "result_expired"
)

// ErrorName returns the registry error name carried by err (a
// *goa.ServiceError returned by the client), or "" for any other error.
func ErrorName(err error) string {
	var se *goa.ServiceError
	if errors.As(err, &se) {
		return se.Name
	}
	return ""
}

// IsError reports whether err is the registry error called name.
func IsError(err error, name string) bool { return ErrorName(err) == name }
