package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/tools"
)

// CallResolvedTool validates a call, admits it with its token and waits for
// its outcome until its deadline. See docs/registry.md for the call-state
// table it implements.
func (s *Service) CallResolvedTool(ctx context.Context, p *gen.CallResolvedToolPayload) (*gen.CallOutcome, error) {
	if err := mayConsume(ctx); err != nil {
		return nil, err
	}
	if err := registry.CheckCallID(p.CallID); err != nil {
		return nil, gen.MakeBadRequest(err)
	}
	raw, err := rawAny(p.Payload)
	if err != nil {
		return nil, gen.MakeBadRequest(fmt.Errorf("payload: %w", err))
	}
	limits := tools.PayloadLimits{MaxBytes: int(s.cfg.MaxPayloadBytes)}
	// The payload as sent, duplicate keys and all: refused here, before
	// anything is recorded, whatever the call id's history.
	ident, _ := tools.NewIdent(p.Toolset, p.Tool) // named in messages only; checked below
	canonicalJSON, err := tools.CanonicalJSON(ident, raw, limits)
	if err != nil {
		return nil, gen.MakeValidationError(err)
	}
	injected, err := injectedJSON(ident, p.Injected, limits)
	if err != nil {
		return nil, gen.MakeValidationError(err)
	}
	digest := requestDigest(digestInput(canonicalJSON, injected))
	// The call id is the caller's key's: another key's call under the same
	// id is another record, which this request never reaches.
	owner, id := callScope(ctx), scopedCallID(ctx, p.CallID)
	// A retry returns the recorded call, whatever changed since.
	if prev, err := s.store.GetCall(ctx, id); err == nil {
		if prev.Owner != owner || prev.Toolset != p.Toolset || prev.Tool != p.Tool || !sameRequest(prev.Digest, digest, raw) {
			return nil, gen.MakeCallIDConflict(fmt.Errorf("call id %q was used by a call to %s.%s with another payload: use a new call id for a new call", p.CallID, prev.Toolset, prev.Tool))
		}
		if prev.State == store.CallAccepted && time.Since(prev.AcceptedAt) > retryOfferAfter {
			// Its offer may have died with the node that accepted it; a call
			// offered twice is published once. A quick retry does not offer
			// again: a retry storm would fill the queue with copies.
			s.offer(ctx, prev.Token, prev.ID)
		}
		return s.await(ctx, prev)
	} else if !errors.Is(err, store.ErrUnknownCall) {
		return nil, unavailable(err)
	}

	v := s.current()
	reg, ok := v.active[p.Toolset]
	if !ok {
		return nil, gen.MakeUnknownToolset(fmt.Errorf("no toolset %q is registered: list the registry's toolsets", p.Toolset))
	}
	spec, ok := reg.specs[p.Tool]
	if !ok {
		return nil, gen.MakeUnknownTool(fmt.Errorf("toolset %q has no tool %q; its tools: %s", p.Toolset, p.Tool, strings.Join(reg.reg.Tools, ", ")))
	}
	if p.Token != reg.reg.Token {
		return nil, admissionConflict(p.Toolset, reg.reg.Revision)
	}
	// The key's grant and limit (limits.go): the slot is held until the
	// call settles once it is tracked, given back on any earlier return.
	slot, err := s.admitCall(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer slot.release()
	canonical, err := tools.CanonicalPayload(spec, raw, limits)
	if err != nil {
		return nil, gen.MakeValidationError(err)
	}
	if err := spec.Payload.Validate(canonical); err != nil {
		return nil, gen.MakeValidationError(err)
	}
	// The provider receives the payload with the consumer's injected
	// values filled in (injected.go).
	if canonical, err = fillInjected(spec, canonical, injected); err != nil {
		return nil, gen.MakeValidationError(err)
	}
	now := time.Now()
	call := store.Call{
		ID: id, Owner: owner, Toolset: p.Toolset, Tool: p.Tool, Token: p.Token, Payload: canonical, Digest: digest,
		State: store.CallAccepted, AcceptedAt: now, Deadline: now.Add(time.Duration(p.TimeoutMs) * time.Millisecond),
	}
	if p.RunID != nil {
		call.RunID = *p.RunID
	}
	if owner != "" {
		call.CallerID = p.CallID
	}
	// A provider with room whose stream is here takes the call in the same
	// write that accepts it; otherwise the call waits on the bus, whose
	// queue is bounded.
	leaseID, reserved := s.router.reserve(p.Token, id)
	admitted := func() {}
	if !reserved {
		// Counted as waiting from here until it is on the bus.
		n, full, onBus, err := s.queued.admit(ctx, s.bus, p.Token, s.shared, s.cfg.MaxQueue)
		switch {
		case err != nil:
			return nil, gen.MakeUnavailable(fmt.Errorf("the registry's bus failed: %w; retry with the same call id", err))
		case full:
			return nil, gen.MakeOverloaded(fmt.Errorf("toolset %q has %d calls waiting for a provider: retry with the same call id and token", p.Toolset, n))
		}
		defer onBus()
		admitted = onBus
	}
	rec, created, err := s.store.AcceptCall(ctx, call, leaseID)
	if err != nil || !created || rec.State != store.CallPublished || rec.LeaseID != leaseID {
		if reserved {
			s.router.unreserve(leaseID, id)
		}
	}
	switch {
	case errors.Is(err, store.ErrCallIDConflict):
		return nil, gen.MakeCallIDConflict(fmt.Errorf("call id %q was used by another call: use a new call id for a new call", p.CallID))
	case errors.Is(err, store.ErrAdmissionConflict):
		// The store saw a replacement this process's view has not: read the
		// catalog again, so that a resolution now gives the new token.
		if rerr := s.refresh(ctx); rerr != nil {
			s.log.Error("registry: refresh", "err", rerr)
		}
		return nil, admissionConflict(p.Toolset, "")
	case errors.Is(err, store.ErrUnknownToolset):
		return nil, gen.MakeUnknownToolset(fmt.Errorf("toolset %q was removed: list the registry's toolsets", p.Toolset))
	case err != nil:
		// The write may have happened, its answer lost.
		go s.afterLostWrite(id, leaseID)
		return nil, unavailable(err)
	case !created:
		return s.await(ctx, rec)
	}
	wt := s.waiters.track(rec)
	slot.keepUntil(s, wt, rec.Deadline.Add(s.cfg.PublishedGrace+s.cfg.LeaseTTL))
	// A replacement, an unregistration or a lease's end may have settled
	// the call between its acceptance and its tracking.
	if fresh, err := s.store.GetCall(ctx, rec.ID); err == nil && fresh.State == store.CallSettled {
		s.settled(fresh)
		return outcome(fresh)
	}
	if rec.State == store.CallPublished {
		s.deliver(ctx, rec)
	} else {
		s.queued.offered(rec.Token)
		s.offer(ctx, rec.Token, rec.ID)
		admitted()
	}
	return s.wait(ctx, rec, wt)
}

// retryOfferAfter is how long after its acceptance a retry of a call still
// accepted offers it again.
const retryOfferAfter = 2 * time.Second

// await waits for a call's outcome until its deadline. An accepted call
// still waiting then settles as call_not_admitted; a published one stays
// published (its provider may still post) and the caller reads
// outcome_unknown.
func (s *Service) await(ctx context.Context, c store.Call) (*gen.CallOutcome, error) {
	if c.State == store.CallSettled {
		return outcome(c)
	}
	wt := s.waiters.track(c)
	// The call may have settled before it was tracked.
	if fresh, err := s.store.GetCall(ctx, c.ID); err == nil && fresh.State == store.CallSettled {
		s.waiters.notify(fresh)
		return outcome(fresh)
	}
	return s.wait(ctx, c, wt)
}

// wait waits for a tracked call's outcome until its deadline (see await).
func (s *Service) wait(ctx context.Context, c store.Call, wt *waiter) (*gen.CallOutcome, error) {
	timer := time.NewTimer(time.Until(c.Deadline))
	defer timer.Stop()
	select {
	case <-wt.done:
		return outcome(wt.call)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.closing:
		return nil, gen.MakeUnavailable(errors.New("the registry is shutting down: retry with the same call id"))
	case <-timer.C:
	}
	if fresh, err := s.store.GetCall(ctx, c.ID); err == nil && fresh.State == store.CallAccepted {
		settled, err := s.store.SettleCall(ctx, store.Settlement{CallID: c.ID, Outcome: store.OutcomeCallNotAdmitted,
			Error: "no healthy provider took the call before its deadline"})
		if err == nil {
			s.settled(settled)
		}
	}
	fresh, err := s.store.GetCall(ctx, c.ID)
	if err != nil {
		return nil, unavailable(err)
	}
	if fresh.State == store.CallSettled {
		return outcome(fresh)
	}
	return nil, gen.MakeOutcomeUnknown(fmt.Errorf("call %q was handed to a provider that has not posted its outcome by the deadline; it may or may not have run, and it is never re-run elsewhere: retry with the same call id to read the outcome once posted", c.CallerCallID()))
}

// outcome renders a settled call for its consumer.
func outcome(c store.Call) (*gen.CallOutcome, error) {
	if c.ResultForgotten && (c.Outcome == store.OutcomeOK || c.Outcome == store.OutcomeToolError) {
		return nil, gen.MakeResultExpired(fmt.Errorf("call %q ran and settled (%s) at %s, but the registry keeps results for a shorter time than call records and this one is gone; the call is never run again under this id: call with a new id to run it again", c.CallerCallID(), c.Outcome, c.SettledAt.UTC().Format(time.RFC3339)))
	}
	switch c.Outcome {
	case store.OutcomeOK:
		return &gen.CallOutcome{CallID: c.CallerCallID(), Outcome: "ok", Result: rawJSON(c.Result)}, nil
	case store.OutcomeToolError:
		msg := c.Error
		return &gen.CallOutcome{CallID: c.CallerCallID(), Outcome: "tool_error", Error: &msg,
			ErrorKind: optString(c.ErrorKind), ErrorRecovery: optString(c.ErrorRecovery)}, nil
	case store.OutcomeCallNotAdmitted:
		return nil, gen.MakeCallNotAdmitted(fmt.Errorf("call %q did not run: %s", c.CallerCallID(), c.Error))
	default:
		return nil, gen.MakeOutcomeUnknown(fmt.Errorf("call %q may or may not have run (%s); it is never re-run elsewhere", c.CallerCallID(), c.Error))
	}
}

// PostResult records a call's outcome from the provider it was handed to:
// a result, or an error message with, optionally, the failure's kind and
// recovery (Goa checked their form), which only an error may carry.
func (s *Service) PostResult(ctx context.Context, p *gen.PostResultPayload) (*gen.CallRecord, error) {
	lease, err := s.ownLease(ctx, p.LeaseID)
	if err != nil {
		var se interface{ GoaErrorName() string }
		if !errors.As(err, &se) || se.GoaErrorName() != "lease_expired" {
			return nil, err
		}
		// A provider whose lease ended may still post (the store decides
		// whether the call is its own), if its key may serve the call's
		// toolset. (A consumer key never gets here: the front door refuses
		// its post before any call is read, whatever the call id.)
		c, gerr := s.store.GetCall(ctx, p.CallID)
		if gerr != nil {
			return nil, gen.MakeNotFound(fmt.Errorf("no call %q", p.CallID))
		}
		if err := mayPublish(ctx, c.Toolset); err != nil {
			return nil, err
		}
		lease.ID = p.LeaseID
	}
	set := store.Settlement{CallID: p.CallID, LeaseID: lease.ID, Outcome: store.OutcomeOK}
	switch {
	case p.Error != nil && p.Result != nil:
		return nil, gen.MakeBadRequest(errors.New("post either result or error, not both"))
	case p.Error == nil && p.ErrorKind != nil:
		return nil, gen.MakeBadRequest(errors.New("error_kind is posted only with error, the failure it classifies: drop error_kind from a result, or post the error message with it"))
	case p.Error == nil && p.ErrorRecovery != nil:
		return nil, gen.MakeBadRequest(errors.New("error_recovery is posted only with error, the failure it advises on: drop error_recovery from a result, or post the error message with it"))
	case p.Error != nil:
		set.Outcome, set.Error = store.OutcomeToolError, *p.Error
		set.ErrorKind, set.ErrorRecovery = deref(p.ErrorKind), deref(p.ErrorRecovery)
	default:
		raw, err := rawAny(p.Result)
		if err != nil {
			return nil, gen.MakeBadRequest(fmt.Errorf("result: %w", err))
		}
		set.Result = raw
	}
	c, err := s.store.SettleCall(ctx, set)
	switch {
	case errors.Is(err, store.ErrUnknownCall):
		return nil, gen.MakeNotFound(fmt.Errorf("no call %q", p.CallID))
	case errors.Is(err, store.ErrWrongLease):
		return nil, gen.MakeWrongLease(fmt.Errorf("call %q was not handed to lease %q", p.CallID, p.LeaseID))
	case err != nil:
		return nil, unavailable(err)
	}
	s.settled(c)
	r := record(c)
	r.CallID = c.ID // the id the provider was handed and posted by
	return r, nil
}

// GetCall reads a call's record: a call the request's key made under the
// id, or, for an admin key, any scope's call by its registry id
// (readableCall). Another key's call answers exactly as an unknown id.
func (s *Service) GetCall(ctx context.Context, p *gen.GetCallPayload) (*gen.CallRecord, error) {
	if err := mayConsume(ctx); err != nil {
		return nil, err
	}
	c, err := s.readableCall(ctx, p.CallID)
	switch {
	case errors.Is(err, store.ErrUnknownCall):
		return nil, gen.MakeNotFound(fmt.Errorf("no call %q (records are kept %s after they settle)", p.CallID, s.cfg.Retention))
	case err != nil:
		return nil, unavailable(err)
	}
	return record(c), nil
}

func record(c store.Call) *gen.CallRecord {
	r := &gen.CallRecord{CallID: c.CallerCallID(), Toolset: c.Toolset, Tool: c.Tool, Token: c.Token, State: string(c.State)}
	opt := optString
	r.RunID, r.LeaseID, r.Outcome, r.Error = opt(c.RunID), opt(c.LeaseID), opt(string(c.Outcome)), opt(c.Error)
	r.ErrorKind, r.ErrorRecovery = opt(c.ErrorKind), opt(c.ErrorRecovery)
	if c.ResultForgotten {
		expired := true
		r.ResultExpired = &expired
	}
	if len(c.Result) > 0 {
		r.Result = rawJSON(c.Result)
	}
	return r
}

func admissionConflict(toolset, revision string) error {
	msg := fmt.Sprintf("the registration of toolset %q that the token names was replaced", toolset)
	if revision != "" {
		msg += fmt.Sprintf(" (revision %s is active now)", revision)
	}
	return gen.MakeAdmissionConflict(errors.New(msg + ": resolve the toolset again and call with its token"))
}

func unavailable(err error) error {
	return gen.MakeUnavailable(fmt.Errorf("the registry's store failed: %w; retry with the same call id", err))
}

// rawJSON passes JSON through a Goa "Any" attribute unchanged.
func rawJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(b)
}
