package server_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/internal/syncbuf"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store"
)

// Every write that passed the front door leaves one audit line naming the
// key, the operation, what it touched and how it ended; none holds a
// payload, a result, an error message or a key.
func TestEveryWriteLeavesOneAuditLine(t *testing.T) {
	var buf syncbuf.Buffer
	keys, err := server.ParseKeys([]byte(fmt.Sprintf(`{"keys":[
		{"name":"prov","key":%q,"role":"provider","toolsets":["echo*"]},
		{"name":"cons","key":%q,"role":"consumer"},
		{"name":"root","key":%q,"role":"admin"}]}`, authProviderKey, authConsumerKey, authAdminKey)))
	if err != nil {
		t.Fatal(err)
	}
	r := registrytest.Start(t, registrytest.Options{Keys: keys, LeaseTTL: 400 * time.Millisecond,
		AuditLog: slog.New(slog.NewJSONHandler(&buf, nil))})
	prov, cons, admin := r.Client(t, authProviderKey), r.Client(t, authConsumerKey), r.Client(t, authAdminKey)
	p := registrytest.Register(t, prov, registrytest.Echo("echo"), "r1", 4, true)
	// Renewals are not audited: let a few happen.
	for range 3 {
		if _, err := prov.Renew(t.Context(), &gen.RenewPayload{LeaseID: p.Lease.LeaseID}); err != nil {
			t.Fatal(err)
		}
	}
	done := async(cons, "echo", "echo", p.Lease.Token, "audited-1", `{"text":"SECRET-PAYLOAD"}`, 10*time.Second)
	f := <-p.Frames
	if _, err := p.Post(*f.CallID, `{"text":"SECRET-RESULT"}`, ""); err != nil {
		t.Fatal(err)
	}
	if ans := <-done; ans.err != nil {
		t.Fatal(ans.err)
	}
	_, err = registrytest.Call(cons, "nope", "echo", "qrt1_x", "audited-2", `{"text":"x"}`, time.Second)
	wantName(t, err, registry.ErrUnknownToolset)
	if err := admin.Unregister(t.Context(), &gen.UnregisterPayload{Name: "echo"}); err != nil {
		t.Fatal(err)
	}

	var lines []map[string]string
	for line := range strings.Lines(buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if m["msg"] != "registry: audit" {
			continue
		}
		flat := map[string]string{}
		for k, v := range m {
			flat[k] = fmt.Sprint(v)
		}
		lines = append(lines, flat)
		for _, secret := range []string{"SECRET-PAYLOAD", "SECRET-RESULT", authProviderKey, authConsumerKey, authAdminKey} {
			if strings.Contains(line, secret) {
				t.Fatalf("an audit line holds %q: %s", secret, line)
			}
		}
	}
	want := []map[string]string{
		{"key": "prov", "role": "provider", "op": "register", "toolset": "echo", "lease": p.Lease.LeaseID, "result": "ok"},
		{"key": "cons", "role": "consumer", "op": "call", "toolset": "echo", "tool": "echo", "call": "audited-1", "result": "ok"},
		{"key": "prov", "role": "provider", "op": "post_result", "toolset": "echo", "call": store.ScopedCallID("cons", "audited-1"), "lease": p.Lease.LeaseID, "result": "ok"},
		{"key": "cons", "role": "consumer", "op": "call", "toolset": "nope", "tool": "echo", "call": "audited-2", "result": "unknown_toolset"},
		{"key": "root", "role": "admin", "op": "unregister", "toolset": "echo", "result": "ok"},
	}
	// The call's line is written when it ends, after its result's.
	var got []map[string]string
	for _, l := range lines {
		g := map[string]string{}
		for k := range want[0] {
			if v, ok := l[k]; ok {
				g[k] = v
			}
		}
		if l["route"] == "" || !strings.Contains(l["route"], "/v1/") {
			t.Errorf("audit line without its route: %v", l)
		}
		for _, k := range []string{"tool", "call", "lease"} {
			if v, ok := l[k]; ok {
				g[k] = v
			}
		}
		got = append(got, g)
	}
	if len(got) != len(want) {
		t.Fatalf("%d audit lines, want %d:\n%s", len(got), len(want), buf.String())
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			if fmt.Sprint(g) == fmt.Sprint(w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no audit line %v in\n%v", w, got)
		}
	}
}
