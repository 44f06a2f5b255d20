package server

import (
	"context"
	"errors"

	"github.com/quiver-go/quiver/registry/store"
)

// A call id is scoped to the name of the API key that made the call
// (docs/registry.md, "Call ownership"): the registry records the call
// under store.ScopedCallID(key name, call id), so another key's caller who
// sends the same id reaches its own scope's call — a new call, or nothing —
// and never learns the first one exists. A key rotated under the same name
// keeps its calls. A keyless registry is one scope (the empty name), whose
// records keep the caller's id, as records written before calls were
// scoped do.

// callScope is the scope of the request's calls: its key's name.
func callScope(ctx context.Context) string { return principal(ctx).Name }

// scopedCallID is the id the request's call callerID is recorded under.
func scopedCallID(ctx context.Context, callerID string) string {
	return store.ScopedCallID(callScope(ctx), callerID)
}

// readableCall reads the call a get_call of id names for the request's
// key: the call its key made under id. An admin key reads any scope's
// call: failing its own, the call recorded under the registry id id (the
// id its provider was handed, store.ScopedCallID of the owner's key name
// and the caller's id; the caller's id itself for the empty scope's
// records), and failing that the call made under id by the keys
// configured now, the first in keys-file order that has one (the registry
// id names one call exactly when several keys used the same id).
// store.ErrUnknownCall when the key reaches no such call.
func (s *Service) readableCall(ctx context.Context, id string) (store.Call, error) {
	own := scopedCallID(ctx, id)
	c, err := s.store.GetCall(ctx, own)
	if !errors.Is(err, store.ErrUnknownCall) || principal(ctx).Role != RoleAdmin {
		return c, err
	}
	tried := map[string]bool{own: true}
	for _, sid := range append([]string{id}, s.currentKeys().scopedIDs(id)...) {
		if tried[sid] {
			continue
		}
		tried[sid] = true
		if c, err = s.store.GetCall(ctx, sid); !errors.Is(err, store.ErrUnknownCall) {
			return c, err
		}
	}
	return c, err
}

// scopedIDs are the ids callerID is recorded under in the scope of each
// key, in keys-file order.
func (k *Keys) scopedIDs(callerID string) []string {
	if !k.Configured() {
		return nil
	}
	ids := make([]string, 0, len(k.entries))
	for _, e := range k.entries {
		ids = append(ids, store.ScopedCallID(e.key.Name, callerID))
	}
	return ids
}
