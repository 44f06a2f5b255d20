package redisstore

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// Times are kept as 21 digits: seconds since 1970 plus timeOffset (12
// digits), then nanoseconds (9 digits), so that their string order is
// their time order, to the nanosecond (lua/common.lua reads them too).
const (
	timeOffset  = 100_000_000_000
	timeKeySize = 21
)

// timeKey writes t as the layout keeps times; times before the year -1200
// or after 26000 do not fit.
func timeKey(t time.Time) (string, error) {
	sec := t.Unix() + timeOffset
	if sec < 0 || sec >= 1_000_000_000_000 {
		return "", fmt.Errorf("time %v out of the store's range", t)
	}
	return fmt.Sprintf("%012d%09d", sec, t.Nanosecond()), nil
}

// parseTime reads a time the layout kept, in UTC.
func parseTime(k string) (time.Time, error) {
	if len(k) != timeKeySize {
		return time.Time{}, fmt.Errorf("time %q: want %d digits", k, timeKeySize)
	}
	sec, err1 := strconv.ParseInt(k[:12], 10, 64)
	nsec, err2 := strconv.ParseInt(k[12:], 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}, fmt.Errorf("time %q: not digits", k)
	}
	return time.Unix(sec-timeOffset, nsec).UTC(), nil
}

// leaseRecord is a lease as the scripts keep it: strings only.
type leaseRecord struct {
	ID          string `json:"id"`
	Toolset     string `json:"toolset"`
	Token       string `json:"token"`
	Provider    string `json:"provider"`
	MaxInFlight string `json:"max_in_flight"`
	State       string `json:"state"`
	TTL         string `json:"ttl"`
	Expires     string `json:"expires"`
}

func decodeLease(v any) (store.Lease, error) {
	s, _ := v.(string)
	var r leaseRecord
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return store.Lease{}, fmt.Errorf("corrupt lease record %q: %w", s, err)
	}
	maxInFlight, err1 := strconv.Atoi(r.MaxInFlight)
	ttl, err2 := strconv.ParseInt(r.TTL, 10, 64)
	expires, err3 := parseTime(r.Expires)
	if err1 != nil || err2 != nil || err3 != nil {
		return store.Lease{}, fmt.Errorf("corrupt lease record %q", s)
	}
	return store.Lease{ID: r.ID, Toolset: r.Toolset, Token: r.Token, Provider: r.Provider,
		MaxInFlight: maxInFlight, State: store.LeaseState(r.State), TTL: time.Duration(ttl), ExpiresAt: expires}, nil
}

func decodeLeases(v any) ([]store.Lease, error) {
	items, _ := v.([]any)
	var out []store.Lease
	for _, item := range items {
		l, err := decodeLease(item)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// decodeRegistration reads a registration's record: the time it was
// stored, then its JSON. A registration without RegisteredAt gets that
// time.
func decodeRegistration(v any) (store.Registration, error) {
	s, _ := v.(string)
	var r store.Registration
	if len(s) < timeKeySize {
		return r, fmt.Errorf("corrupt registration record %q", s)
	}
	if err := json.Unmarshal([]byte(s[timeKeySize:]), &r); err != nil {
		return r, fmt.Errorf("corrupt registration record: %w", err)
	}
	if r.RegisteredAt.IsZero() {
		t, err := parseTime(s[:timeKeySize])
		if err != nil {
			return r, fmt.Errorf("corrupt registration record: %w", err)
		}
		r.RegisteredAt = t
	}
	return r, nil
}

// callFields are the fields of a call the store never changes, the "rec"
// field of its hash.
type callFields struct {
	ID       string          `json:"id"`
	Owner    string          `json:"owner,omitempty"`
	CallerID string          `json:"caller_id,omitempty"`
	Toolset  string          `json:"toolset"`
	Tool     string          `json:"tool"`
	RunID    string          `json:"run_id,omitempty"`
	Token    string          `json:"token"`
	Payload  json.RawMessage `json:"payload,omitempty"`
	Digest   string          `json:"digest"`
	Deadline time.Time       `json:"deadline"`
}

// decodeCall reads a call's hash as a script answers it: HGETALL's flat
// list of fields and values.
func decodeCall(v any) (store.Call, error) {
	flat, _ := v.([]any)
	f := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		k, _ := flat[i].(string)
		f[k], _ = flat[i+1].(string)
	}
	return callOfFields(f)
}

// callOfFields reads a call's hash.
func callOfFields(f map[string]string) (store.Call, error) {
	var base callFields
	if err := json.Unmarshal([]byte(f["rec"]), &base); err != nil {
		return store.Call{}, fmt.Errorf("corrupt call record: %w", err)
	}
	c := store.Call{ID: base.ID, Owner: base.Owner, CallerID: base.CallerID, Toolset: base.Toolset, Tool: base.Tool, RunID: base.RunID, Token: base.Token,
		Payload: base.Payload, Digest: base.Digest, Deadline: base.Deadline,
		State: store.CallState(f["state"]), LeaseID: f["lease"], Outcome: store.Outcome(f["outcome"]), Error: f["error"],
		ErrorKind: f["error_kind"], ErrorRecovery: f["error_recovery"]}
	if r := f["result"]; r != "" {
		c.Result = json.RawMessage(r)
	}
	c.ResultForgotten, c.PayloadForgotten = f["result_forgotten"] == "1", f["payload_forgotten"] == "1"
	for _, t := range []struct {
		field string
		to    *time.Time
	}{{"accepted", &c.AcceptedAt}, {"published", &c.PublishedAt}, {"settled", &c.SettledAt}} {
		if k, ok := f[t.field]; ok {
			var err error
			if *t.to, err = parseTime(k); err != nil {
				return store.Call{}, fmt.Errorf("corrupt call record %s: %w", c.ID, err)
			}
		}
	}
	return c, nil
}

func decodeCalls(v any) ([]store.Call, error) {
	items, _ := v.([]any)
	var out []store.Call
	for _, item := range items {
		c, err := decodeCall(item)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// decodeEffects reads the six elements that end the reply of a script
// that reports its effects (lua/common.lua's effects()); leases sorted by
// id.
func decodeEffects(v []any) (store.Effects, error) {
	var fx store.Effects
	if len(v) != 6 {
		return fx, fmt.Errorf("effects: %d elements, want 6", len(v))
	}
	activated, _ := v[0].([]any)
	for _, item := range activated {
		r, err := decodeRegistration(item)
		if err != nil {
			return fx, err
		}
		fx.Activated = append(fx.Activated, r)
	}
	removed, _ := v[1].([]any)
	for _, item := range removed {
		ts, _ := item.(string)
		fx.Removed = append(fx.Removed, ts)
	}
	var err error
	if fx.Draining, err = decodeLeases(v[2]); err != nil {
		return fx, err
	}
	if fx.Ended, err = decodeLeases(v[3]); err != nil {
		return fx, err
	}
	sortLeases(fx.Draining)
	sortLeases(fx.Ended)
	if fx.Settled, err = decodeCalls(v[4]); err != nil {
		return fx, err
	}
	rev, _ := v[5].(int64)
	fx.Revision = uint64(rev)
	return fx, nil
}
