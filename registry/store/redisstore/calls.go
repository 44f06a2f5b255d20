package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/registry/store"
)

// AcceptCall implements [store.Store] in one round trip (lua/accept.lua).
// The record's state, lease and outcome fields are the store's; AcceptedAt
// is the caller's, or the store's clock when zero.
func (s *Store) AcceptCall(ctx context.Context, call store.Call, assignTo string) (store.Call, bool, error) {
	if err := store.CheckCall(call); err != nil {
		return store.Call{}, false, fmt.Errorf("redisstore: %w", err)
	}
	var accepted string
	if !call.AcceptedAt.IsZero() {
		var err error
		if accepted, err = timeKey(call.AcceptedAt); err != nil {
			return store.Call{}, false, fmt.Errorf("redisstore: accept call %q: accepted at: %w", call.ID, err)
		}
	}
	rec, err := json.Marshal(callFields{ID: call.ID, Owner: call.Owner, CallerID: call.CallerID, Toolset: call.Toolset, Tool: call.Tool, RunID: call.RunID,
		Token: call.Token, Payload: call.Payload, Digest: call.Digest, Deadline: call.Deadline})
	if err != nil {
		return store.Call{}, false, fmt.Errorf("redisstore: accept call %q: encode: %w", call.ID, err)
	}
	reply, err := s.eval(ctx, "accept call", scriptAccept, false,
		call.ID, call.Toolset, call.Tool, call.Digest, call.Token, rec, accepted, assignTo, redisconn.Nonce(), call.Owner)
	if err != nil {
		return store.Call{}, false, err
	}
	switch status := redisconn.Str(reply[0]); {
	case status == "call_id_conflict" && len(reply) == 2:
		return store.Call{}, false, fmt.Errorf("redisstore: accept call %q of owner %q: recorded for another owner: %w",
			call.ID, call.Owner, store.ErrCallIDConflict)
	case status == "call_id_conflict" && len(reply) == 4:
		return store.Call{}, false, fmt.Errorf("redisstore: accept call %q (%s.%s, digest %s): recorded for %s.%s, digest %s: %w",
			call.ID, call.Toolset, call.Tool, call.Digest, redisconn.Str(reply[1]), redisconn.Str(reply[2]), redisconn.Str(reply[3]), store.ErrCallIDConflict)
	case status == "unknown_toolset":
		return store.Call{}, false, fmt.Errorf("redisstore: accept call %q: toolset %q: %w", call.ID, call.Toolset, store.ErrUnknownToolset)
	case status == "admission_conflict" && len(reply) == 2:
		return store.Call{}, false, fmt.Errorf("redisstore: accept call %q: toolset %s is at revision %s, the call's token names another: %w",
			call.ID, call.Toolset, redisconn.Str(reply[1]), store.ErrAdmissionConflict)
	case status != "ok" || len(reply) != 3:
		return store.Call{}, false, badReply("accept call", reply)
	}
	created, _ := reply[1].(int64)
	c, err := decodeCall(reply[2])
	if err != nil {
		return store.Call{}, false, fmt.Errorf("redisstore: accept call %q: %w", call.ID, err)
	}
	return c, created == 1, nil
}

// PublishCall implements [store.Store] (lua/publish.lua).
func (s *Store) PublishCall(ctx context.Context, callID, leaseID string) (store.Call, bool, error) {
	c, reply, err := s.callScript(ctx, "publish call", scriptPublish, callID, leaseID, redisconn.Nonce())
	switch {
	case errors.Is(err, store.ErrLeaseGone):
		return store.Call{}, false, fmt.Errorf("redisstore: publish call %q to lease %q: not a live active lease on the call's registration: %w",
			callID, leaseID, store.ErrLeaseGone)
	case err != nil:
		return store.Call{}, false, err
	case len(reply) != 3:
		return store.Call{}, false, badReply("publish call", reply)
	}
	published, _ := reply[2].(int64)
	return c, published == 1, nil
}

// ReturnCall implements [store.Store] (lua/return.lua).
func (s *Store) ReturnCall(ctx context.Context, callID, leaseID string) (store.Call, error) {
	c, _, err := s.callScript(ctx, "return call", scriptReturn, callID, leaseID)
	return c, err
}

// SettleCall implements [store.Store] in one round trip (lua/settle.lua).
// The store keeps Result for OutcomeOK only, and Error, ErrorKind and
// ErrorRecovery for the other outcomes.
func (s *Store) SettleCall(ctx context.Context, st store.Settlement) (store.Call, error) {
	switch st.Outcome {
	case store.OutcomeOK, store.OutcomeToolError, store.OutcomeCallNotAdmitted, store.OutcomeUnknown:
	default:
		return store.Call{}, fmt.Errorf("redisstore: settle call %q: unknown outcome %q", st.CallID, st.Outcome)
	}
	if len(st.Result) > 0 && !json.Valid(st.Result) {
		return store.Call{}, fmt.Errorf("redisstore: settle call %q: the result is not valid JSON", st.CallID)
	}
	c, _, err := s.callScript(ctx, "settle call", scriptSettle, st.CallID, st.LeaseID, string(st.Outcome), []byte(st.Result), st.Error,
		st.ErrorKind, st.ErrorRecovery)
	if errors.Is(err, store.ErrWrongLease) {
		return store.Call{}, fmt.Errorf("redisstore: settle call %q from lease %q: %w", st.CallID, st.LeaseID, err)
	}
	return c, err
}

// callScript runs a script whose reply is the status, then one call's
// record (and what else the caller reads from reply). The first two args
// are the call id and a lease id. The statuses of errors are mapped to the
// store's sentinels: ErrUnknownCall with its detail, ErrLeaseGone and
// ErrWrongLease for the caller to detail.
func (s *Store) callScript(ctx context.Context, what string, sc *redis.Script, args ...any) (store.Call, []any, error) {
	callID := args[0]
	reply, err := s.eval(ctx, what, sc, false, args...)
	if err != nil {
		return store.Call{}, nil, err
	}
	switch status := redisconn.Str(reply[0]); {
	case status == "unknown_call":
		return store.Call{}, nil, fmt.Errorf("redisstore: %s %q: %w", what, callID, store.ErrUnknownCall)
	case status == "lease_gone":
		return store.Call{}, nil, store.ErrLeaseGone
	case status == "wrong_lease" && len(reply) == 3:
		return store.Call{}, nil, fmt.Errorf("the call is %s to lease %q: %w", redisconn.Str(reply[1]), redisconn.Str(reply[2]), store.ErrWrongLease)
	case status != "ok" || len(reply) < 2:
		return store.Call{}, nil, badReply(what, reply)
	}
	c, err := decodeCall(reply[1])
	if err != nil {
		return store.Call{}, nil, fmt.Errorf("redisstore: %s %q: %w", what, callID, err)
	}
	return c, reply, nil
}

// forgetBatch bounds how many calls one run of lua/forget.lua forgets per
// kind, so that a first pass over a large backlog never holds Redis long.
const forgetBatch = 1000

// ForgetSettled implements [store.Store] (lua/forget.lua), a batch at a
// time.
func (s *Store) ForgetSettled(ctx context.Context, results, payloads time.Time) (int, error) {
	arg := func(t time.Time) (string, error) {
		if t.IsZero() {
			return "", nil
		}
		return timeKey(t)
	}
	rk, err := arg(results)
	if err != nil {
		return 0, fmt.Errorf("redisstore: forget settled: %w", err)
	}
	pk, err := arg(payloads)
	if err != nil {
		return 0, fmt.Errorf("redisstore: forget settled: %w", err)
	}
	total := 0
	for {
		reply, err := s.eval(ctx, "forget settled", scriptForget, false, rk, pk, forgetBatch)
		if err != nil {
			return total, err
		}
		if redisconn.Str(reply[0]) != "ok" || len(reply) != 3 {
			return total, badReply("forget settled", reply)
		}
		n, _ := reply[1].(int64)
		more, _ := reply[2].(int64)
		total += int(n)
		if more == 0 {
			return total, nil
		}
	}
}

// PurgeSettled implements [store.Store] (lua/purge.lua).
func (s *Store) PurgeSettled(ctx context.Context, before time.Time) (int, error) {
	k, err := timeKey(before)
	switch {
	case err != nil && before.Unix() < 0:
		return 0, nil // before anything the store can hold
	case err != nil:
		k = "999999999999999999999" // after anything it can hold
	}
	reply, err := s.eval(ctx, "purge settled", scriptPurge, false, k)
	if err != nil {
		return 0, err
	}
	if redisconn.Str(reply[0]) != "ok" || len(reply) != 2 {
		return 0, badReply("purge settled", reply)
	}
	n, _ := reply[1].(int64)
	return int(n), nil
}
