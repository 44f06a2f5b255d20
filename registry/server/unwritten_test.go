package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/store/boltstore"
	"github.com/quiver-go/quiver/tools/contract"
)

// Row 15 of the call-state table: a published call whose frame its stream
// never wrote (the stream ended first) goes back to accepted and is routed
// again. A stream cannot be made to end between those two points from
// outside, so this test drives the service's own pieces.
func TestCallStateRow15UnwrittenFrameIsRoutedAgain(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := New(context.Background(), Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	admin := context.WithValue(context.Background(), principalKey{}, Principal{Role: RoleAdmin})

	decl := contract.ToolsetDeclaration{Name: "echo", Tools: []contract.ToolDeclaration{{
		Name: "echo", Title: "Echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
	}}}
	fp, _ := contract.Fingerprint(decl)
	raw, _ := json.Marshal(decl)
	reg, err := svc.Register(admin, &gen.RegisterPayload{Kind: "tool_schemas", Toolset: json.RawMessage(raw), Fingerprint: fp, Revision: "r1", Execution: "service", MaxInFlight: 4})
	if err != nil {
		t.Fatal(err)
	}
	first, _, ok := svc.router.connect(reg.LeaseID)
	if !ok {
		t.Fatal("the lease is not routable")
	}
	done := make(chan error, 1)
	go func() {
		_, err := svc.CallResolvedTool(admin, &gen.CallResolvedToolPayload{Toolset: "echo", Tool: "echo", Token: reg.Token, CallID: "r15",
			Payload: map[string]any{"text": "x"}, TimeoutMs: 10000})
		done <- err
	}()
	var frame *gen.CallFrame
	select {
	case frame = <-first.frames:
	case <-time.After(5 * time.Second):
		t.Fatal("the call was not published")
	}
	// The frame was taken by nobody: put it back as a stream that ended
	// before writing it leaves it.
	first.frames <- frame
	rec, _ := st.GetCall(context.Background(), "r15")
	if rec.State != store.CallPublished {
		t.Fatalf("before the stream ends: %s", rec.State)
	}
	svc.finishStream(first)
	rec, _ = st.GetCall(context.Background(), "r15")
	if rec.State != store.CallAccepted || rec.LeaseID != "" {
		t.Fatalf("after the stream ended: %s on %q, want accepted", rec.State, rec.LeaseID)
	}
	second, _, _ := svc.router.connect(reg.LeaseID)
	pullCtx, stopPull := context.WithCancel(context.Background())
	defer stopPull()
	go svc.pull(pullCtx, second)
	select {
	case frame = <-second.frames:
	case <-time.After(5 * time.Second):
		t.Fatal("the call was not routed again")
	}
	if _, err := svc.PostResult(admin, &gen.PostResultPayload{CallID: *frame.CallID, LeaseID: reg.LeaseID, Result: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
