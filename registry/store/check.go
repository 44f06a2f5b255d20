package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// Check reports what makes in unusable, for every store to refuse alike;
// the error names the registration.
func (in RegisterInput) Check() error {
	r := in.Registration
	var problem string
	switch {
	case r.Toolset == "":
		problem = "no toolset name"
	case r.Token == "":
		problem = "no token"
	case in.TTL <= 0:
		problem = fmt.Sprintf("TTL %v: must be positive", in.TTL)
	case in.MaxInFlight <= 0:
		problem = fmt.Sprintf("max in flight %d: must be positive", in.MaxInFlight)
	case len(r.Declaration) > 0 && !json.Valid(r.Declaration):
		problem = "the declaration is not valid JSON"
	default:
		return nil
	}
	return fmt.Errorf("register %q revision %q: %s", r.Toolset, r.Revision, problem)
}

// CheckCall reports what makes a call unusable for AcceptCall.
func CheckCall(c Call) error {
	switch {
	case c.ID == "":
		return errors.New("accept call: no call id")
	case len(c.Payload) > 0 && !json.Valid(c.Payload):
		return fmt.Errorf("accept call %q: the payload is not valid JSON", c.ID)
	}
	return checkScope(c)
}

// NewLeaseID returns a random lease id: "lease_" and 32 hex digits.
func NewLeaseID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return "lease_" + hex.EncodeToString(b[:])
}
