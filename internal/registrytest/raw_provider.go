package registrytest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools/contract"
)

// RawProvider is a provider driven by hand: it registers and reads its
// stream, and does nothing else unless the test says so (it does not renew
// its lease, answer calls or drain), so tests can make a provider vanish
// at a chosen moment.
type RawProvider struct {
	C      *registry.Client
	Lease  *gen.Registration
	Frames chan *gen.CallFrame
	cancel context.CancelFunc
}

// Register registers decl at revision with maxInFlight and, when connect
// is true, opens the call stream.
func Register(t testing.TB, c *registry.Client, decl contract.ToolsetDeclaration, revision string, maxInFlight int, connect bool) *RawProvider {
	t.Helper()
	fp, err := contract.Fingerprint(decl)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(decl)
	lease, err := c.Register(context.Background(), &gen.RegisterPayload{
		Kind: "tool_schemas", Toolset: json.RawMessage(raw), Fingerprint: fp, Revision: revision,
		Execution: "service", MaxInFlight: maxInFlight,
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &RawProvider{C: c, Lease: lease, Frames: make(chan *gen.CallFrame, 1024)}
	if connect {
		p.Connect(t)
	}
	return p
}

// Connect opens the call stream; call frames go to Frames.
func (p *RawProvider) Connect(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := p.C.Calls(ctx, &gen.CallsPayload{LeaseID: p.Lease.LeaseID})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	p.cancel = cancel
	// The first frame (a ping) says the stream is attached.
	if _, err := stream.Recv(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		defer stream.Close()
		for {
			f, err := stream.Recv(ctx)
			if err != nil {
				return
			}
			if f.Type == "call" {
				p.Frames <- f
			}
		}
	}()
	t.Cleanup(cancel)
}

// Disconnect drops the stream, as a dying provider's connection does.
func (p *RawProvider) Disconnect() {
	if p.cancel != nil {
		p.cancel()
	}
}

// Post posts a call's result (error when errMsg is not "").
func (p *RawProvider) Post(callID, result, errMsg string) (*gen.CallRecord, error) {
	pl := &gen.PostResultPayload{CallID: callID, LeaseID: p.Lease.LeaseID}
	if errMsg != "" {
		pl.Error = &errMsg
	} else {
		pl.Result = json.RawMessage(result)
	}
	return p.C.PostResult(context.Background(), pl)
}
