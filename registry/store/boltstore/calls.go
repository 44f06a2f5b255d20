package boltstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// AcceptCall implements [store.Store]. The record's state, lease and
// outcome fields are the store's; AcceptedAt is the caller's, or the
// store's clock when zero.
func (s *Store) AcceptCall(ctx context.Context, call store.Call, assignTo string) (store.Call, bool, error) {
	if err := store.CheckCall(call); err != nil {
		return store.Call{}, false, fmt.Errorf("boltstore: %w", err)
	}
	var out store.Call
	var created bool
	err := s.write(ctx, func(t *txn) (err error) {
		out, created, err = t.accept(call, assignTo)
		return err
	})
	if err != nil {
		return store.Call{}, false, err
	}
	return out, created, nil
}

func (t *txn) accept(call store.Call, assignTo string) (store.Call, bool, error) {
	old, ok, err := t.call(call.ID)
	switch {
	case err != nil:
		return store.Call{}, false, err
	case ok && old.Owner != call.Owner:
		return store.Call{}, false, fmt.Errorf("boltstore: accept call %q of owner %q: recorded for another owner: %w",
			call.ID, call.Owner, store.ErrCallIDConflict)
	case ok && (old.Toolset != call.Toolset || old.Tool != call.Tool || old.Digest != call.Digest):
		return store.Call{}, false, fmt.Errorf("boltstore: accept call %q (%s.%s, digest %s): recorded for %s.%s, digest %s: %w",
			call.ID, call.Toolset, call.Tool, call.Digest, old.Toolset, old.Tool, old.Digest, store.ErrCallIDConflict)
	case ok:
		return old, false, nil
	}
	active, ok, err := t.token(call.Toolset)
	switch {
	case err != nil:
		return store.Call{}, false, err
	case !ok:
		return store.Call{}, false, fmt.Errorf("boltstore: accept call %q: toolset %q: %w", call.ID, call.Toolset, store.ErrUnknownToolset)
	case call.Token != active.Token:
		return store.Call{}, false, fmt.Errorf("boltstore: accept call %q: toolset %s is at revision %s, the call's token names another: %w",
			call.ID, call.Toolset, active.Revision, store.ErrAdmissionConflict)
	}
	rec := call
	rec.State = store.CallAccepted
	rec.LeaseID, rec.Outcome, rec.Result, rec.Error, rec.ErrorKind, rec.ErrorRecovery = "", "", nil, "", "", ""
	rec.PublishedAt, rec.SettledAt = time.Time{}, time.Time{}
	if rec.AcceptedAt.IsZero() {
		rec.AcceptedAt = t.now
	}
	if assignTo != "" {
		l, ok, err := t.lease(assignTo)
		if err != nil {
			return store.Call{}, false, err
		}
		if ok && routable(l, rec, t.now) {
			rec.State, rec.LeaseID, rec.PublishedAt = store.CallPublished, l.ID, t.now
		}
	}
	return rec, true, t.insertCall(rec)
}

// routable reports whether a call may be handed to a lease: live, active,
// on the call's registration.
func routable(l store.Lease, c store.Call, now time.Time) bool {
	return live(l, now) && l.State == store.LeaseActive && l.Toolset == c.Toolset && l.Token == c.Token
}

// PublishCall implements [store.Store].
func (s *Store) PublishCall(ctx context.Context, callID, leaseID string) (store.Call, bool, error) {
	var out store.Call
	var published bool
	err := s.write(ctx, func(t *txn) error {
		c, ok, err := t.call(callID)
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("boltstore: publish call %q: %w", callID, store.ErrUnknownCall)
		case c.State != store.CallAccepted:
			out = c
			return nil
		}
		active, ok, err := t.token(c.Toolset)
		if err != nil {
			return err
		}
		if !ok || active.Token != c.Token {
			out = c
			return t.settle(&out, store.Settlement{Outcome: store.OutcomeCallNotAdmitted,
				Error: "the call's registration of toolset " + c.Toolset + " is no longer active"}, nil)
		}
		l, ok, err := t.lease(leaseID)
		if err != nil {
			return err
		}
		if !ok || !routable(l, c, t.now) {
			return fmt.Errorf("boltstore: publish call %q to lease %q: not a live active lease on the call's registration: %w",
				callID, leaseID, store.ErrLeaseGone)
		}
		out, published = c, true
		return t.publish(&out, leaseID)
	})
	if err != nil {
		return store.Call{}, false, err
	}
	return out, published, nil
}

// SettleCall implements [store.Store]. The store keeps Result for
// OutcomeOK only, and Error, ErrorKind and ErrorRecovery for the other
// outcomes.
func (s *Store) SettleCall(ctx context.Context, st store.Settlement) (store.Call, error) {
	switch st.Outcome {
	case store.OutcomeOK, store.OutcomeToolError, store.OutcomeCallNotAdmitted, store.OutcomeUnknown:
	default:
		return store.Call{}, fmt.Errorf("boltstore: settle call %q: unknown outcome %q", st.CallID, st.Outcome)
	}
	if len(st.Result) > 0 && !json.Valid(st.Result) {
		return store.Call{}, fmt.Errorf("boltstore: settle call %q: the result is not valid JSON", st.CallID)
	}
	var out store.Call
	err := s.write(ctx, func(t *txn) error {
		c, ok, err := t.call(st.CallID)
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("boltstore: settle call %q: %w", st.CallID, store.ErrUnknownCall)
		}
		out = c
		switch {
		case c.State == store.CallSettled:
			return nil
		case st.Outcome == store.OutcomeOK || st.Outcome == store.OutcomeToolError:
			if c.State != store.CallPublished || c.LeaseID != st.LeaseID {
				return fmt.Errorf("boltstore: settle call %q from lease %q: the call is %s to lease %q: %w",
					st.CallID, st.LeaseID, c.State, c.LeaseID, store.ErrWrongLease)
			}
		case st.Outcome == store.OutcomeCallNotAdmitted && c.State != store.CallAccepted,
			st.Outcome == store.OutcomeUnknown && c.State != store.CallPublished:
			return nil
		}
		return t.settle(&out, st, nil)
	})
	if err != nil {
		return store.Call{}, err
	}
	return out, nil
}

// PurgeSettled implements [store.Store].
func (s *Store) PurgeSettled(ctx context.Context, before time.Time) (int, error) {
	var n int
	err := s.write(ctx, func(t *txn) error {
		var keys [][]byte
		c := t.tx.Bucket(bucketSettled).Cursor()
		for k, _ := c.First(); k != nil && timeOfKey(k).Before(before); k, _ = c.Next() {
			keys = append(keys, append([]byte(nil), k...))
		}
		for _, k := range keys {
			if err := t.del(bucketCalls, k[8:]); err != nil {
				return err
			}
			if err := t.del(bucketSettled, k); err != nil {
				return err
			}
		}
		n = len(keys)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
