package boltstore

import (
	"encoding/json"

	"github.com/quiver-go/quiver/registry/store"
)

// activeToken is the part of an active registration that admits calls.
type activeToken struct {
	Token    string `json:"token"`
	Revision string `json:"revision"`
}

// putActive makes reg the toolset's active registration.
func (t *txn) putActive(reg store.Registration) error {
	if err := t.putJSON(bucketActive, reg.Toolset, reg); err != nil {
		return err
	}
	return t.putJSON(bucketTokens, reg.Toolset, activeToken{Token: reg.Token, Revision: reg.Revision})
}

// token reads the token and revision of the toolset's active registration.
func (t *txn) token(toolset string) (activeToken, bool, error) {
	var a activeToken
	v := t.tx.Bucket(bucketTokens).Get([]byte(toolset))
	if v == nil {
		return a, false, nil
	}
	return a, true, json.Unmarshal(v, &a)
}
