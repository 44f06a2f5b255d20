package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// Registration is what a provider publishes with [Serve].
type Registration struct {
	// Toolset is the full ToolSchemas() publication: a generated package's
	// Toolset(), or a runtime-defined declaration.
	Toolset contract.ToolsetDeclaration
	// Revision is issued by the deployment (a build id, a version): a
	// changed contract needs a new one.
	Revision string
	// Provider names this instance in the registry's logs.
	Provider string
	// MaxInFlight is how many calls the instance takes at once (default 64).
	MaxInFlight int
	// DrainTimeout bounds how long a graceful drain waits for calls in hand
	// (default 30s).
	DrainTimeout time.Duration
	// Logger receives what [Serve] does; slog.Default() when nil.
	Logger *slog.Logger
}

// ErrReplaced is returned by [Serve] when the registry drained this provider
// because a new revision of its toolset replaced it.
var ErrReplaced = errors.New("registry: a new revision replaced this provider's registration")

// Serve publishes reg to the registry and runs the calls it routes to this
// instance with exec, until ctx ends — then it drains gracefully: no new
// calls, the calls in hand finish and post their outcome, the lease is
// released — or until the registry drains it for a new revision
// ([ErrReplaced]). It registers again when its lease is lost and reconnects
// its stream when the registry restarts; outcomes are posted until the
// registry records them. A registration the registry refuses is returned
// at once.
//
// exec is the executor that serves the toolset anywhere else
// ([toolcall.Executor]): it receives each call with the tool's compiled
// spec, the payload the consumer validated as its Payload, that payload
// with the injected fields filled in from the consumer's injected values
// as its InjectedPayload and Decode ([toolcall.Forwarded]; the registry
// checked those values against the fields' schemas), the consumer's run
// id and the registry
// call id as Meta.RunID and Meta.ToolCallID, and a context that ends at
// the consumer's deadline. Its result crosses with its bounds written in
// the result's canonical fields; its failure with its message, kind and
// recovery (to a node listing [FeatureFailureKind]). Display hints and
// server data do not cross the registry.
func Serve(ctx context.Context, c *Client, reg Registration, exec toolcall.Executor) error {
	if c == nil || exec == nil {
		return errors.New("registry: Serve needs a client and an executor")
	}
	p, err := newProvider(c, reg, exec)
	if err != nil {
		return err
	}
	return p.run(ctx)
}

type provider struct {
	c       *Client
	reg     Registration
	exec    toolcall.Executor
	specs   map[tools.Ident]tools.ToolSpec
	log     *slog.Logger
	payload *gen.RegisterPayload

	// inHand counts the calls executing or posting.
	inHand inflight
}

func newProvider(c *Client, reg Registration, exec toolcall.Executor) (*provider, error) {
	if reg.Revision == "" {
		return nil, errors.New("registry: Serve: the registration has no revision")
	}
	if reg.MaxInFlight == 0 {
		reg.MaxInFlight = 64
	}
	if reg.DrainTimeout == 0 {
		reg.DrainTimeout = 30 * time.Second
	}
	if reg.Logger == nil {
		reg.Logger = slog.Default()
	}
	fp, err := contract.Fingerprint(reg.Toolset)
	if err != nil {
		return nil, err
	}
	decl := reg.Toolset
	decl.RegisteredAt = time.Time{}
	raw, err := json.Marshal(decl)
	if err != nil {
		return nil, fmt.Errorf("registry: Serve: encode the declaration: %w", err)
	}
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		return nil, fmt.Errorf("registry: Serve: %w", err)
	}
	p := &provider{c: c, reg: reg, exec: exec, log: reg.Logger, specs: make(map[tools.Ident]tools.ToolSpec, len(specs))}
	for _, spec := range specs {
		p.specs[spec.Name] = spec
	}
	p.payload = &gen.RegisterPayload{
		Kind: "tool_schemas", Toolset: json.RawMessage(raw), Fingerprint: fp, Revision: reg.Revision,
		Execution: "service", MaxInFlight: reg.MaxInFlight,
	}
	if reg.Provider != "" {
		p.payload.Provider = &reg.Provider
	}
	return p, nil
}

// run registers and serves until ctx ends or the registry drains us.
func (p *provider) run(ctx context.Context) error {
	backoff := newBackoff()
	for {
		lease, err := p.c.Register(ctx, p.payload)
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil:
			backoff.reset()
			done, err := p.session(ctx, lease)
			if done {
				return err
			}
			continue
		case !retryable(err):
			return fmt.Errorf("registry: register toolset %q revision %s: %w", p.reg.Toolset.Name, p.reg.Revision, err)
		}
		p.log.Warn("registry: register failed; retrying", "toolset", p.reg.Toolset.Name, "err", err)
		if !backoff.wait(ctx) {
			return nil
		}
	}
}

// retryable reports whether a registration error may pass on retry: the
// registry is unreachable or busy, or a replacement is pending.
func retryable(err error) bool {
	switch ErrorName(err) {
	case "":
		return true
	case ErrUnavailable, ErrReplacementPending:
		return true
	}
	return false
}

// session serves one lease. done reports whether Serve should return (with
// err); otherwise the lease was lost and Serve registers again.
func (p *provider) session(ctx context.Context, reg *gen.Registration) (done bool, err error) {
	leaseID := reg.LeaseID
	p.log.Info("registry: registered", "toolset", reg.Toolset, "lease", leaseID, "state", reg.State)
	// The session outlives ctx by its drain: the lease is renewed and the
	// stream read until the calls in hand have posted their outcomes.
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	lost := make(chan struct{})
	var lostOnce sync.Once
	markLost := func() { lostOnce.Do(func() { close(lost) }) }
	drained := make(chan struct{})
	var drainOnce sync.Once
	markDrained := func() { drainOnce.Do(func() { close(drained) }) }
	// The wire features of the node, as its latest lease answer lists them.
	features := new(atomic.Pointer[[]string])
	features.Store(&reg.Features)
	go p.renew(sctx, leaseID, time.Duration(reg.TTLMs)*time.Millisecond, markLost, features)
	go p.receive(sctx, leaseID, markLost, markDrained, features)
	select {
	case <-ctx.Done():
		p.drain(leaseID, true)
		return true, nil
	case <-drained:
		p.drain(leaseID, false)
		return true, ErrReplaced
	case <-lost:
		return false, nil
	}
}

// receive reads the stream, reconnecting when it breaks, until sctx ends
// or the lease is lost. A drain frame is reported to drained, and reading
// goes on: a call the registry published just before it must still run.
func (p *provider) receive(sctx context.Context, leaseID string, lost, drained func(), features *atomic.Pointer[[]string]) {
	backoff := newBackoff()
	for sctx.Err() == nil {
		stream, err := p.c.Calls(sctx, &gen.CallsPayload{LeaseID: leaseID})
		if err != nil {
			if IsError(err, ErrLeaseExpired) {
				lost()
				return
			}
			if !backoff.wait(sctx) {
				return
			}
			continue
		}
		backoff.reset()
		for {
			f, err := stream.Recv(sctx)
			if err != nil {
				if !errors.Is(err, io.EOF) && sctx.Err() == nil {
					p.log.Warn("registry: call stream broke; reconnecting", "lease", leaseID, "err", err)
				}
				stream.Close()
				break
			}
			switch f.Type {
			case "call":
				p.inHand.add()
				go p.handle(sctx, leaseID, f, *features.Load())
			case "drain":
				drained()
			}
		}
	}
}

// handle executes one call and posts its outcome until the registry
// records it (or the lease ends: the registry settles it then). features
// are the node's wire features when the call arrived: a failure's kind and
// recovery are posted only to a node that takes them.
func (p *provider) handle(sctx context.Context, leaseID string, f *gen.CallFrame, features []string) {
	defer p.inHand.done()
	callID := deref(f.CallID)
	ectx := context.WithoutCancel(sctx)
	if f.Deadline != nil {
		if deadline, err := time.Parse(time.RFC3339Nano, *f.Deadline); err == nil {
			var cancel context.CancelFunc
			ectx, cancel = context.WithDeadline(ectx, deadline)
			defer cancel()
		}
	}
	post := &gen.PostResultPayload{CallID: callID, LeaseID: leaseID}
	result, failure := p.execute(ectx, callID, f)
	if failure != nil {
		post.Error = &failure.Message
		if failurePost(post, failure, features) {
			p.log.Warn("registry: the executor's failure kind or recovery is not one the wire carries; posting the error without it",
				"call", callID, "kind", failure.Code, "recovery", failure.Recovery)
		}
	} else {
		post.Result = result
	}
	backoff := newBackoff()
	for {
		// Posting outlives the session's context: a drain waits for it.
		pctx, cancel := context.WithTimeout(context.WithoutCancel(sctx), 30*time.Second)
		_, err := p.c.PostResult(pctx, post)
		cancel()
		switch ErrorName(err) {
		case "":
			if err == nil {
				return
			}
		case ErrUnavailable:
		case ErrBadRequest:
			if post.ErrorKind != nil || post.ErrorRecovery != nil {
				// A node of an earlier version behind the same address
				// refuses the fields it does not know: the outcome
				// matters more than its kind.
				p.log.Warn("registry: the node refused the failure's kind; posting the error without it", "call", callID, "err", err)
				post.ErrorKind, post.ErrorRecovery = nil, nil
				continue
			}
			fallthrough
		default:
			p.log.Error("registry: outcome refused", "call", callID, "err", err)
			return
		}
		if !backoff.wait(context.Background()) || backoff.attempts > 60 {
			p.log.Error("registry: outcome not posted", "call", callID, "err", err)
			return
		}
	}
}

// execute runs the call a frame hands over and returns what to post: the
// result, its bounds written in its canonical fields, or the failure.
func (p *provider) execute(ctx context.Context, callID string, f *gen.CallFrame) (json.RawMessage, *toolcall.Failure) {
	id := tools.JoinIdent(deref(f.Toolset), deref(f.Tool))
	spec, ok := p.specs[id]
	if !ok {
		return nil, toolcall.Unavailable(string(id))
	}
	payload, ok := f.Payload.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(f.Payload)
		if err != nil {
			return nil, toolcall.InvalidPayload(err)
		}
		payload = b
	}
	call := toolcall.Forwarded(id, spec.Clone(), payload, tools.CallMeta{RunID: deref(f.RunID), ToolCallID: callID})
	if len(spec.Inject) > 0 {
		model, err := withoutInjected(spec, payload)
		if err != nil {
			return nil, toolcall.InjectionFailed(err)
		}
		// InjectedPayload and Decode still return the payload as received.
		call.Payload = model
	}
	res, err := p.exec.Execute(ctx, call)
	switch {
	case err != nil:
		if f := toolcall.AsFailure(err); f != nil {
			return nil, f
		}
		return nil, toolcall.ToolFailed(err)
	case res == nil:
		return nil, toolcall.NoResult()
	case res.Failure != nil:
		return nil, res.Failure
	}
	result := res.Result
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	if spec.Bounds != nil && res.Bounds != nil {
		withBounds, err := toolcall.WithBoundsFields(spec, result, *res.Bounds)
		if err != nil {
			return nil, toolcall.InvalidResult(err)
		}
		result = withBounds
	}
	return result, nil
}

// withoutInjected returns a received payload without the tool's injected
// fields: the payload the model wrote (toolcall.Call.Payload). The
// registry filled every injected field in from the consumer's injected
// values and refuses a payload that sets one, so each is present, and is
// the consumer's.
func withoutInjected(spec tools.ToolSpec, payload json.RawMessage) (json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := tools.Unmarshal(payload, &members); err != nil || members == nil {
		return nil, fmt.Errorf("registry: %s has injected fields but the payload received is not a JSON object", spec.Name)
	}
	for _, f := range spec.Inject {
		if _, ok := members[f.Name]; !ok {
			return nil, fmt.Errorf("registry: the payload received for %s lacks its injected field %q: the registry node or the consumer predates injected fields on the registry; upgrade them", spec.Name, f.Name)
		}
		delete(members, f.Name)
	}
	// The members are canonical already; encoded with their keys sorted
	// and without HTML escaping, the object is too.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(members); err != nil {
		return nil, fmt.Errorf("registry: %s: encode the payload: %w", spec.Name, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// drain stops new calls, waits for those in hand, and releases the lease.
func (p *provider) drain(leaseID string, askRegistry bool) {
	ctx, cancel := context.WithTimeout(context.Background(), p.reg.DrainTimeout)
	defer cancel()
	if askRegistry {
		if _, err := p.c.Drain(ctx, &gen.DrainPayload{LeaseID: leaseID}); err != nil && !IsError(err, ErrLeaseExpired) {
			p.log.Warn("registry: drain", "lease", leaseID, "err", err)
		}
	}
	if !p.inHand.wait(ctx) {
		p.log.Warn("registry: drain timed out with calls in hand", "lease", leaseID)
	}
	if err := p.c.Release(ctx, &gen.ReleasePayload{LeaseID: leaseID}); err != nil {
		p.log.Warn("registry: release", "lease", leaseID, "err", err)
	}
	p.log.Info("registry: released", "lease", leaseID)
}

// renew keeps the lease alive, a third of its TTL at a time; a renewal
// that fails (the registry is unreachable) is retried at once with backoff,
// so an outage shorter than the TTL costs no lease. It calls lost when the
// registry says the lease ended, and keeps in features the wire features
// each renewal lists.
func (p *provider) renew(ctx context.Context, leaseID string, ttl time.Duration, lost func(), features *atomic.Pointer[[]string]) {
	if ttl <= 0 {
		ttl = 15 * time.Second
	}
	wait := time.NewTimer(ttl / 3)
	defer wait.Stop()
	// Retries come often enough that a registry back from an outage (it
	// gives every lease a full TTL when it starts) hears from us in time.
	backoff := newBackoff()
	backoff.max = min(backoff.max, ttl/4)
	for {
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		for {
			l, err := p.c.Renew(ctx, &gen.RenewPayload{LeaseID: leaseID})
			if err == nil {
				// The node that answered may run another version.
				features.Store(&l.Features)
				backoff.reset()
				break
			}
			if IsError(err, ErrLeaseExpired) {
				p.log.Warn("registry: lease lost; registering again", "lease", leaseID)
				lost()
				return
			}
			if !backoff.wait(ctx) {
				return
			}
		}
		wait.Reset(ttl / 3)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// backoff waits 50ms, doubling up to max (2s unless set), with jitter.
type backoff struct {
	next, max time.Duration
	attempts  int
}

func newBackoff() *backoff { return &backoff{next: 50 * time.Millisecond, max: 2 * time.Second} }

func (b *backoff) reset() { b.next, b.attempts = min(50*time.Millisecond, b.max), 0 }

func (b *backoff) wait(ctx context.Context) bool {
	d := b.next/2 + rand.N(b.next/2+1)
	b.next = min(b.next*2, b.max)
	b.attempts++
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// inflight counts the calls in hand. Unlike a sync.WaitGroup, a call may
// arrive while a drain waits (one the registry published just before it).
type inflight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{}
}

func (f *inflight) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
}

func (f *inflight) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 {
		close(f.idle)
	}
}

// wait waits until no call is in hand; false when ctx ended first.
func (f *inflight) wait(ctx context.Context) bool {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return true
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-ctx.Done():
		return false
	}
}
