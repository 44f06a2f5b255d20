package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/registry/store"
)

// Indexes of s.keys, the fixed keys of the layout.
const (
	keyRev = iota
	keyChanges
	keyActive
	keyTokens
	keyPending
	keyPendingTokens
	keyLeases
	keyUnsettled
	keySettled
)

// read runs reads in one MULTI transaction: one consistent read.
func (s *Store) read(ctx context.Context, what string, reads func(p redis.Pipeliner)) error {
	if err := s.conn.Usable(ctx); err != nil {
		return err
	}
	_, err := s.conn.C.TxPipelined(ctx, func(p redis.Pipeliner) error {
		reads(p)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.conn.Failed(ctx, what, err)
	}
	return nil
}

// revision reads the answer of a GET of the revision key.
func revision(cmd *redis.StringCmd) (uint64, error) {
	v, err := cmd.Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(v, 10, 64)
}

// Catalog implements [store.Store] in one MULTI transaction. Leases past
// their expiry are not live and not listed, even before ExpireLeases ends
// them.
func (s *Store) Catalog(ctx context.Context) (store.Catalog, error) {
	var rev *redis.StringCmd
	var active, leases *redis.MapStringStringCmd
	var serverTime *redis.TimeCmd
	err := s.read(ctx, "catalog", func(p redis.Pipeliner) {
		rev = p.Get(ctx, s.keys[keyRev])
		active = p.HGetAll(ctx, s.keys[keyActive])
		leases = p.HGetAll(ctx, s.keys[keyLeases])
		if s.cfg.clock == nil {
			serverTime = p.Time(ctx)
		}
	})
	if err != nil {
		return store.Catalog{}, err
	}
	var cat store.Catalog
	if cat.Revision, err = revision(rev); err != nil {
		return store.Catalog{}, fmt.Errorf("redisstore: catalog: revision: %w", err)
	}
	for _, v := range active.Val() {
		r, err := decodeRegistration(v)
		if err != nil {
			return store.Catalog{}, fmt.Errorf("redisstore: catalog: %w", err)
		}
		cat.Registrations = append(cat.Registrations, r)
	}
	slices.SortFunc(cat.Registrations, func(a, b store.Registration) int { return strings.Compare(a.Toolset, b.Toolset) })
	var now time.Time
	if serverTime != nil {
		now = serverTime.Val()
	} else {
		now = s.cfg.clock()
	}
	for _, v := range leases.Val() {
		l, err := decodeLease(v)
		if err != nil {
			return store.Catalog{}, fmt.Errorf("redisstore: catalog: %w", err)
		}
		if !now.After(l.ExpiresAt) {
			cat.Leases = append(cat.Leases, l)
		}
	}
	sortLeases(cat.Leases)
	return cat, nil
}

// Changes implements [store.Store] in one MULTI transaction. On a reset it
// returns no changes: the caller reads the Catalog again. An after beyond
// the current revision is a reset too.
func (s *Store) Changes(ctx context.Context, after uint64) ([]store.Change, uint64, bool, error) {
	var revCmd *redis.StringCmd
	var first *redis.ZSliceCmd
	var logged *redis.StringSliceCmd
	err := s.read(ctx, "changes", func(p redis.Pipeliner) {
		revCmd = p.Get(ctx, s.keys[keyRev])
		first = p.ZRangeWithScores(ctx, s.keys[keyChanges], 0, 0)
		logged = p.ZRangeByScore(ctx, s.keys[keyChanges], &redis.ZRangeBy{Min: "(" + strconv.FormatUint(after, 10), Max: "+inf"})
	})
	if err != nil {
		return nil, 0, false, err
	}
	rev, err := revision(revCmd)
	if err != nil {
		return nil, 0, false, fmt.Errorf("redisstore: changes: revision: %w", err)
	}
	switch {
	case after > rev:
		return nil, rev, true, nil
	case after == rev:
		return nil, rev, false, nil
	}
	if f := first.Val(); len(f) == 0 || uint64(f[0].Score) > after+1 {
		return nil, rev, true, nil
	}
	var changes []store.Change
	for _, m := range logged.Val() {
		parts := strings.SplitN(m, ":", 3)
		n, err := strconv.ParseUint(parts[0], 10, 64)
		if len(parts) != 3 || err != nil {
			return nil, 0, false, fmt.Errorf("redisstore: changes: corrupt change %q", m)
		}
		changes = append(changes, store.Change{Revision: n, Kind: store.ChangeKind(parts[1]), Toolset: parts[2]})
	}
	return changes, rev, false, nil
}

// GetCall implements [store.Store].
func (s *Store) GetCall(ctx context.Context, callID string) (store.Call, error) {
	if err := s.conn.Usable(ctx); err != nil {
		return store.Call{}, err
	}
	fields, err := s.conn.C.HGetAll(ctx, s.cfg.prefix+"call:"+callID).Result()
	if err != nil {
		return store.Call{}, s.conn.Failed(ctx, "get call", err)
	}
	if len(fields) == 0 {
		return store.Call{}, fmt.Errorf("redisstore: call %q: %w", callID, store.ErrUnknownCall)
	}
	c, err := callOfFields(fields)
	if err != nil {
		return store.Call{}, fmt.Errorf("redisstore: call %q: %w", callID, err)
	}
	return c, nil
}

// Unsettled implements [store.Store] in one read-only script
// (lua/unsettled.lua): oldest AcceptedAt first, then by id.
func (s *Store) Unsettled(ctx context.Context) ([]store.Call, error) {
	reply, err := s.eval(ctx, "unsettled", scriptUnsettled, true)
	if err != nil {
		return nil, err
	}
	if redisconn.Str(reply[0]) != "ok" || len(reply) != 2 {
		return nil, badReply("unsettled", reply)
	}
	calls, err := decodeCalls(reply[1])
	if err != nil {
		return nil, fmt.Errorf("redisstore: unsettled: %w", err)
	}
	return calls, nil
}
