package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store"
)

const (
	ownAliceKey   = "alice-key-0123456789ab"
	ownAliceKey2  = "alice-key-rotated-0123"
	ownBobKey     = "bob-key-0123456789abcd"
	ownRootKey    = "root-key-0123456789abc"
	ownProvKey    = "prov-key-0123456789abc"
	ownKeysFormat = `{"keys":[
		{"name":"prov","key":%q,"role":"provider","toolsets":["echo*"]},
		{"name":"alice","key":%q,"role":"consumer"},
		{"name":"bob","key":%q,"role":"consumer"},
		{"name":"root","key":%q,"role":"admin"}]}`
)

// Row 24: any state × another key's caller uses the call id → it reaches
// only its own key's call: a read (get_call) and a result post answer as
// for an id that does not exist, byte for byte; a call (call_resolved_tool)
// is a new call in its own scope, run again, never call_id_conflict. The
// key that made the call — rotated under the same name too — reads and
// retries it; an admin key reads every scope's call. On both stores.
func TestCallStateRow24CallOwnership(t *testing.T) {
	t.Run("embedded", func(t *testing.T) { testCallOwnership(t, registrytest.Options{}) })
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t, redistest.Options{})
		testCallOwnership(t, registrytest.Options{RedisURL: srv.URL()})
	})
}

func testCallOwnership(t *testing.T, o registrytest.Options) {
	keys, err := server.ParseKeys(fmt.Appendf(nil, ownKeysFormat, ownProvKey, ownAliceKey, ownBobKey, ownRootKey))
	if err != nil {
		t.Fatal(err)
	}
	o.Keys, o.LeaseTTL = keys, time.Minute
	r := registrytest.Start(t, o)
	alice, bob, root := r.Client(t, ownAliceKey), r.Client(t, ownBobKey), r.Client(t, ownRootKey)
	p := registrytest.Register(t, r.Client(t, ownProvKey), registrytest.Echo("echo"), "r1", 8, true)
	token := p.Lease.Token
	aliceID := store.ScopedCallID("alice", "own-1")

	// What bob reads for own-1, and for the registry id of alice's call,
	// while neither exists: the not-found answers alice's call must not
	// change.
	probes := []badCase{
		{method: "GET", path: "/v1/calls/own-1"},
		{method: "GET", path: "/v1/calls/" + aliceID},
		{method: "POST", path: "/v1/calls/own-1/result", body: `{"lease_id":"` + p.Lease.LeaseID + `","result":{"text":"forged"}}`},
		{method: "POST", path: "/v1/calls/" + aliceID + "/result", body: `{"lease_id":"` + p.Lease.LeaseID + `","result":{"text":"forged"}}`},
		{method: "POST", path: "/v1/calls/" + aliceID + "/result", body: `{"lease_id":"lease_gone","result":{"text":"forged"}}`},
	}
	before := make([]string, len(probes))
	for i, pr := range probes {
		pr.auth = "Bearer " + ownBobKey
		before[i] = answerOf(t, r.URL, pr)
	}

	// Alice calls; the provider is handed her call's registry id and
	// posts by it; alice reads her own id.
	done := async(alice, "echo", "echo", token, "own-1", `{"text":"alice"}`, 10*time.Second)
	f := <-p.Frames
	if *f.CallID != aliceID {
		t.Fatalf("the provider was handed call id %q, want alice's registry id %q", *f.CallID, aliceID)
	}
	if rec, err := p.Post(*f.CallID, `{"text":"alice's secret"}`, ""); err != nil || rec.CallID != aliceID {
		t.Fatalf("the provider's post by the id it was handed: %+v %v", rec, err)
	}
	if ans := <-done; ans.err != nil || ans.out.CallID != "own-1" || string(mustJSON(t, ans.out.Result)) != `{"text":"alice's secret"}` {
		t.Fatalf("alice's call: %+v %v", ans.out, ans.err)
	}

	// Bob's reads and posts answer as before alice's call existed.
	for i, pr := range probes {
		pr.auth = "Bearer " + ownBobKey
		if got := answerOf(t, r.URL, pr); got != before[i] {
			t.Errorf("bob's %s %s: %s\nwant, as for an unknown id: %s", pr.method, pr.path, got, before[i])
		}
	}
	wantOwnRecord(t, alice, "own-1", `{"text":"alice's secret"}`)

	// Bob's call under alice's id and payload is bob's own: it runs, and
	// bob reads his result, not alice's.
	bobDone := async(bob, "echo", "echo", token, "own-1", `{"text":"alice"}`, 10*time.Second)
	fb := <-p.Frames
	if *fb.CallID != store.ScopedCallID("bob", "own-1") {
		t.Fatalf("bob's call was handed as %q, want bob's registry id", *fb.CallID)
	}
	if _, err := p.Post(*fb.CallID, `{"text":"bob's"}`, ""); err != nil {
		t.Fatal(err)
	}
	if ans := <-bobDone; ans.err != nil || ans.out.CallID != "own-1" || string(mustJSON(t, ans.out.Result)) != `{"text":"bob's"}` {
		t.Fatalf("bob's replay of alice's id: %+v %v; want his own call's result", ans.out, ans.err)
	}
	// Under alice's id with another payload: no call_id_conflict either.
	serveOne := func(result string) {
		f := <-p.Frames
		if _, err := p.Post(*f.CallID, result, ""); err != nil {
			t.Error(err)
		}
	}
	a2 := async(alice, "echo", "echo", token, "own-2", `{"text":"a2"}`, 10*time.Second)
	serveOne(`{"text":"a2"}`)
	if ans := <-a2; ans.err != nil {
		t.Fatal(ans.err)
	}
	b2 := async(bob, "echo", "echo", token, "own-2", `{"text":"bob's payload"}`, 10*time.Second)
	serveOne(`{"text":"b2"}`)
	if ans := <-b2; ans.err != nil || ans.out.CallID != "own-2" || string(mustJSON(t, ans.out.Result)) != `{"text":"b2"}` {
		t.Fatalf("bob's call under alice's id with another payload: %+v %v; want it run as bob's own", ans.out, ans.err)
	}

	// Alice's records are unchanged by all that; her retry reads her
	// outcome, runs nothing, also with her key rotated under its name.
	wantOwnRecord(t, alice, "own-1", `{"text":"alice's secret"}`)
	rotated, err := server.ParseKeys(fmt.Appendf(nil, ownKeysFormat, ownProvKey, ownAliceKey2, ownBobKey, ownRootKey))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Service.SetKeys(rotated); err != nil {
		t.Fatal(err)
	}
	alice = r.Client(t, ownAliceKey2)
	if out, err := registrytest.Call(alice, "echo", "echo", token, "own-1", `{"text":"alice"}`, 2*time.Second); err != nil || string(mustJSON(t, out.Result)) != `{"text":"alice's secret"}` {
		t.Fatalf("alice's retry with her rotated key: %+v %v; want her recorded outcome", out, err)
	}
	select {
	case f := <-p.Frames:
		t.Fatalf("a retry ran call %s again", *f.CallID)
	case <-time.After(100 * time.Millisecond):
	}
	wantOwnRecord(t, bob, "own-1", `{"text":"bob's"}`)

	// The admin key reads both: by the caller's id (the first key in the
	// keys file that has it: alice) and by each one's registry id.
	wantOwnRecord(t, root, "own-1", `{"text":"alice's secret"}`)
	wantOwnRecord(t, root, aliceID, `{"text":"alice's secret"}`)
	wantOwnRecord(t, root, store.ScopedCallID("bob", "own-1"), `{"text":"bob's"}`)
	_, err = root.GetCall(context.Background(), &gen.GetCallPayload{CallID: "own-never"})
	wantName(t, err, registry.ErrNotFound)

	// A record written before calls were scoped (no owner) is the empty
	// scope's: no consumer key reaches it — bob reads what he reads for an
	// unknown id, and his call under its id is his own — and the admin key
	// reads it by its id.
	legacyProbe := badCase{method: "GET", path: "/v1/calls/legacy-1", auth: "Bearer " + ownBobKey}
	beforeLegacy := answerOf(t, r.URL, legacyProbe)
	legacy := store.Call{ID: "legacy-1", Toolset: "echo", Tool: "echo", Token: token, Payload: json.RawMessage(`{"text":"old"}`),
		Digest: "sha256:legacy", State: store.CallAccepted, Deadline: time.Now().Add(time.Hour)}
	if _, _, err := r.Store.AcceptCall(context.Background(), legacy, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Store.SettleCall(context.Background(), store.Settlement{CallID: "legacy-1", Outcome: store.OutcomeCallNotAdmitted, Error: "old"}); err != nil {
		t.Fatal(err)
	}
	if got := answerOf(t, r.URL, legacyProbe); got != beforeLegacy {
		t.Errorf("bob's read of a record from before scoping: %s\nwant, as for an unknown id: %s", got, beforeLegacy)
	}
	if rec, err := root.GetCall(context.Background(), &gen.GetCallPayload{CallID: "legacy-1"}); err != nil || rec.CallID != "legacy-1" || ownDeref(rec.Outcome) != "call_not_admitted" {
		t.Fatalf("the admin key's read of a record from before scoping: %+v %v", rec, err)
	}
}

// ownDeref is *s, or "" for nil.
func ownDeref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// answerOf is a request's status and body, the Goa error's random "id"
// (different in every error answer) left out.
func answerOf(t *testing.T, base string, c badCase) string {
	t.Helper()
	status, _, b := badDo(t, base, c)
	return fmt.Sprintf("%d %s", status, errorID.ReplaceAll(b, []byte(`"id":"…"`)))
}

var errorID = regexp.MustCompile(`"id":"[^"]*"`)

// mustJSON is v as JSON.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantOwnRecord fails unless c reads call id with that result, under the
// caller's id.
func wantOwnRecord(t *testing.T, c *registry.Client, id, result string) {
	t.Helper()
	rec, err := c.GetCall(context.Background(), &gen.GetCallPayload{CallID: id})
	if err != nil {
		t.Fatalf("get_call %s: %v", id, err)
	}
	if got := string(mustJSON(t, rec.Result)); got != result || rec.CallID == "" {
		t.Fatalf("get_call %s: call id %q result %s, want result %s", id, rec.CallID, got, result)
	}
}
