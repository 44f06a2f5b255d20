package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/tools/contract"
)

// Register registers a toolset's full ToolSchemas() and leases it to the
// caller.
func (s *Service) Register(ctx context.Context, p *gen.RegisterPayload) (*gen.Registration, error) {
	if pr := principal(ctx); pr.Role != RoleProvider && pr.Role != RoleAdmin {
		return nil, gen.MakeForbidden(fmt.Errorf("key %q has role %q: publishing toolsets needs a provider or admin key", pr.Name, pr.Role))
	}
	if p.Kind == "schema_only" {
		return nil, gen.MakeUnsupportedContract(errors.New("schema-only registrations are refused: publish the full ToolSchemas() (generated Toolset(), or a contract.ToolsetDeclaration with search terms, field metadata, labels, confirmation, pagination and server data) with kind tool_schemas"))
	}
	if p.Execution != "service" {
		return nil, gen.MakeUnsupportedContract(fmt.Errorf("execution %q is refused: agent-as-tool and planner control tools stay compiled into their consumers; the registry routes service tools only", p.Execution))
	}
	if strings.TrimSpace(p.Revision) == "" || len(p.Revision) > 256 {
		return nil, gen.MakeBadRequest(errors.New("revision is empty or over 256 bytes: send the revision your deployment issued (a build id, a version)"))
	}
	if !strings.HasPrefix(p.Fingerprint, contract.FingerprintPrefix) {
		return nil, gen.MakeBadRequest(fmt.Errorf("fingerprint %q is not a contract fingerprint (sha256:<hex>): send contract.Fingerprint of the declaration", p.Fingerprint))
	}
	raw, err := rawAny(p.Toolset)
	if err != nil {
		return nil, gen.MakeBadRequest(fmt.Errorf("toolset: %w", err))
	}
	decl, err := decodeDeclaration(raw)
	if err != nil {
		return nil, gen.MakeInvalidDeclaration(err)
	}
	if err := mayPublish(ctx, decl.Name); err != nil {
		return nil, err
	}
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		return nil, gen.MakeInvalidDeclaration(err)
	}
	if len(specs) == 0 {
		return nil, gen.MakeInvalidDeclaration(fmt.Errorf("toolset %q declares no tool", decl.Name))
	}
	fp, err := contract.Fingerprint(decl)
	if err != nil {
		return nil, gen.MakeInvalidDeclaration(err)
	}
	if fp != p.Fingerprint {
		return nil, gen.MakeFingerprintMismatch(fmt.Errorf("the declaration's fingerprint is %s, the request says %s: publish contract.Fingerprint of the declaration you send", fp, p.Fingerprint))
	}
	names := make([]string, len(specs))
	for i, sp := range specs {
		names[i] = sp.Name.Tool()
	}
	slices.Sort(names)
	decl.RegisteredAt = time.Time{}
	in := store.RegisterInput{
		Registration: store.Registration{
			Toolset: decl.Name, Fingerprint: fp, Revision: p.Revision, Token: Token(decl.Name, fp, p.Revision),
			Version: decl.Version, Description: decl.Description, Tags: decl.Tags, Tools: names,
			Declaration: raw, RegisteredAt: time.Now().UTC(),
		},
		MaxInFlight: p.MaxInFlight,
		TTL:         s.cfg.LeaseTTL,
	}
	if p.Provider != nil {
		in.Provider = *p.Provider
	}
	res, err := s.store.Register(ctx, in)
	switch {
	case errors.Is(err, store.ErrRevisionConflict):
		return nil, gen.MakeRevisionConflict(fmt.Errorf("revision %q of toolset %q is registered with another fingerprint: a changed contract needs a new revision", p.Revision, decl.Name))
	case errors.Is(err, store.ErrReplacementPending):
		return nil, gen.MakeReplacementPending(fmt.Errorf("another revision of toolset %q waits for the active one to drain: retry once it is active", decl.Name))
	case err != nil:
		return nil, unavailable(err)
	}
	s.log.Info("registry: provider registered", "toolset", decl.Name, "revision", p.Revision, "lease", res.Lease.ID, "state", res.Lease.State, "provider", in.Provider)
	s.apply(ctx, res.Effects)
	s.changedLeases(ctx)
	l := leaseResult(res.Lease)
	return &gen.Registration{
		LeaseID: l.LeaseID, Toolset: l.Toolset, Token: l.Token, State: l.State, TTLMs: l.TTLMs, ExpiresAt: l.ExpiresAt,
		Features: l.Features, Fingerprint: fp, Revision: p.Revision, CatalogRevision: int64(s.current().revision),
	}, nil
}

// ownLease finds a live lease the caller may serve.
func (s *Service) ownLease(ctx context.Context, id string) (store.Lease, error) {
	l, ok := s.router.leaseOf(id)
	if !ok && s.shared {
		// Registered through another node a moment ago, perhaps.
		if err := s.refresh(ctx); err == nil {
			l, ok = s.router.leaseOf(id)
		}
	}
	if !ok {
		return store.Lease{}, gen.MakeLeaseExpired(fmt.Errorf("lease %q ended (expired, released or unregistered): register again", id))
	}
	if err := mayPublish(ctx, l.Toolset); err != nil {
		return store.Lease{}, err
	}
	return l, nil
}

// Renew extends a lease.
func (s *Service) Renew(ctx context.Context, p *gen.RenewPayload) (*gen.Lease, error) {
	if _, err := s.ownLease(ctx, p.LeaseID); err != nil {
		return nil, err
	}
	l, err := s.store.Renew(ctx, p.LeaseID)
	if errors.Is(err, store.ErrLeaseGone) {
		return nil, gen.MakeLeaseExpired(fmt.Errorf("lease %q ended: register again", p.LeaseID))
	} else if err != nil {
		return nil, unavailable(err)
	}
	return leaseResult(l), nil
}

// Drain stops routing calls to a lease.
func (s *Service) Drain(ctx context.Context, p *gen.DrainPayload) (*gen.Lease, error) {
	if _, err := s.ownLease(ctx, p.LeaseID); err != nil {
		return nil, err
	}
	l, err := s.store.Drain(ctx, p.LeaseID)
	if errors.Is(err, store.ErrLeaseGone) {
		return nil, gen.MakeLeaseExpired(fmt.Errorf("lease %q ended already", p.LeaseID))
	} else if err != nil {
		return nil, unavailable(err)
	}
	s.log.Info("registry: provider draining", "toolset", l.Toolset, "lease", l.ID, "provider", l.Provider)
	s.changedLeases(ctx)
	return leaseResult(l), nil
}

// Release ends a lease.
func (s *Service) Release(ctx context.Context, p *gen.ReleasePayload) error {
	if _, err := s.ownLease(ctx, p.LeaseID); err != nil {
		var se interface{ GoaErrorName() string }
		if errors.As(err, &se) && se.GoaErrorName() == "lease_expired" {
			return nil // released already
		}
		return err
	}
	e, err := s.store.Release(ctx, p.LeaseID)
	if err != nil {
		return unavailable(err)
	}
	s.apply(ctx, e)
	return nil
}

// Unregister removes a toolset.
func (s *Service) Unregister(ctx context.Context, p *gen.UnregisterPayload) error {
	if err := mayPublish(ctx, p.Name); err != nil {
		return err
	}
	e, err := s.store.Unregister(ctx, p.Name)
	if errors.Is(err, store.ErrUnknownToolset) {
		return gen.MakeNotFound(fmt.Errorf("no toolset %q is registered", p.Name))
	} else if err != nil {
		return unavailable(err)
	}
	s.apply(ctx, e)
	return nil
}

// Calls streams a lease's calls to its provider until the provider
// disconnects, the lease ends or the registry closes.
func (s *Service) Calls(ctx context.Context, p *gen.CallsPayload, stream gen.CallsServerStream) error {
	if _, err := s.ownLease(ctx, p.LeaseID); err != nil {
		return err
	}
	c, old, ok := s.router.connect(p.LeaseID)
	if !ok {
		return gen.MakeLeaseExpired(fmt.Errorf("lease %q ended: register again", p.LeaseID))
	}
	if old != nil {
		s.finishStream(old)
	}
	defer s.finishStream(c)
	go s.pull(ctx, c)
	w := streamWriter(ctx)
	ping := time.NewTicker(s.cfg.PingInterval)
	defer ping.Stop()
	drain := c.drain
	send := func(f *gen.CallFrame) bool {
		if err := stream.SendWithContext(ctx, f); err != nil {
			return false
		}
		return w == nil || w.err() == nil
	}
	// The first frame commits the response headers, so a provider knows at
	// once that its stream is open.
	if !send(&gen.CallFrame{Type: "ping"}) {
		return nil
	}
	for {
		select {
		case f := <-c.frames:
			if !send(f) {
				return nil
			}
		case <-drain:
			drain = nil
			// Calls published before the drain go first: a provider stops
			// taking calls once it reads the drain frame.
			if !sendQueued(c, send) || !send(&gen.CallFrame{Type: "drain"}) {
				return nil
			}
		case <-ping.C:
			if !send(&gen.CallFrame{Type: "ping"}) {
				return nil
			}
		case <-c.closed:
			return nil
		case <-ctx.Done():
			return nil
		case <-s.closing:
			return nil
		}
	}
}

// sendQueued writes the frames waiting in c, without waiting for more.
func sendQueued(c *conn, send func(*gen.CallFrame) bool) bool {
	for {
		select {
		case f := <-c.frames:
			if !send(f) {
				return false
			}
		default:
			return true
		}
	}
}

// finishStream detaches a stream and routes again the calls whose frames
// it never wrote.
func (s *Service) finishStream(c *conn) {
	if !c.close() {
		return
	}
	for _, f := range s.router.disconnect(c) {
		s.unwritten(context.Background(), *f.CallID, c.leaseID)
	}
}

// leaseResult is a lease as the API answers it, with the node's wire
// features.
func leaseResult(l store.Lease) *gen.Lease {
	return &gen.Lease{
		LeaseID: l.ID, Toolset: l.Toolset, Token: l.Token, State: string(l.State),
		TTLMs: l.TTL.Milliseconds(), ExpiresAt: l.ExpiresAt.UTC().Format(time.RFC3339Nano),
		Features: wireFeatures(),
	}
}

// wireFeatures are the wire features a node of this version accepts,
// beyond the API's first version, as every lease it answers with lists
// them: registry.FeatureFailureKind (post_result takes a failure's kind
// and recovery).
func wireFeatures() []string { return []string{registry.FeatureFailureKind} }
