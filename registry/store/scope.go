package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// maxScopedIDLength is the longest id ScopedCallID returns: the longest
// call id the registry takes (registry.MaxCallIDLength), so that a scoped
// id follows the call-id alphabet and length and travels in the same URL
// paths (a provider posts its outcome by it).
const maxScopedIDLength = 256

// scopeTagLength is how many hex digits of the owner's digest a scoped id
// carries (128 bits).
const scopeTagLength = 32

// ScopedCallID is the id a call is recorded under: the caller's call id
// callerID in the scope of owner, the name of the API key that made the
// call. Two owners' calls with the same caller id are two records; a
// caller reaches only its own scope's, since the registry derives the id
// it reads from the caller's key name, never takes it from the request.
//
// The empty owner (a keyless registry; records written before calls were
// scoped) keeps the caller's id as it is. Another owner's id is callerID,
// ".q" and 32 hex digits of the owner name's SHA-256 — or, when that
// would exceed 256 bytes, "scope." and the hex SHA-256 of owner and
// callerID. Either form follows the call-id alphabet (A-Z a-z 0-9 . _ :
// -), so a provider is handed it and posts its outcome by it, and distinct
// (owner, callerID) pairs get distinct ids.
func ScopedCallID(owner, callerID string) string {
	if owner == "" {
		return callerID
	}
	tag := sha256.Sum256([]byte("quiver call scope\x00" + owner))
	if len(callerID)+2+scopeTagLength <= maxScopedIDLength {
		return callerID + ".q" + hex.EncodeToString(tag[:])[:scopeTagLength]
	}
	sum := sha256.Sum256([]byte("quiver call scope\x00" + owner + "\x00" + callerID))
	return "scope." + hex.EncodeToString(sum[:])
}

// CallerCallID is the id the call's caller chose: CallerID, or ID for a
// call recorded in the empty scope.
func (c Call) CallerCallID() string {
	if c.CallerID != "" {
		return c.CallerID
	}
	return c.ID
}

// checkScope reports a call whose ID is not its caller id in its owner's
// scope (ScopedCallID).
func checkScope(c Call) error {
	switch {
	case c.Owner != "" && c.CallerID == "":
		return fmt.Errorf("accept call %q: owner %q but no caller id: set CallerID to the caller's id and ID to ScopedCallID(Owner, CallerID)", c.ID, c.Owner)
	case c.ID != ScopedCallID(c.Owner, c.CallerCallID()):
		return fmt.Errorf("accept call %q: the id is not caller id %q in the scope of owner %q: set ID to ScopedCallID(Owner, CallerID)", c.ID, c.CallerCallID(), c.Owner)
	}
	return nil
}
