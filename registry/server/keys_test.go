package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/tools"
)

func TestKeysFileValidation(t *testing.T) {
	const good = `{"name":"ok","key":"0123456789abcdef-ok","role":"consumer"}`
	digest := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name string
		doc  string
		// want are phrases the error must hold, each naming its entry.
		want []string
	}{
		{"not JSON", `keys: []`, []string{`not a keys document ({"keys": [...]}): line 1, column 1`}},
		{"unknown field", `{"keys":[` + good + `],"realm":"x"}`, []string{`line 1, column 71: unknown field "realm"`}},
		{"syntax error on a later line", "{\n  \"keys\": [\n    {\"name\": \"a\",}\n  ]\n}", []string{`line 3, column 18`}},
		{"unknown field in an entry", `{"keys":[{"name":"a","key":"0123456789abcdef-a","role":"admin","scopes":["x"]}]}`, []string{`unknown field "scopes"`}},
		{"no keys field", `{}`, []string{"no keys: list at least one"}},
		{"empty list", `{"keys":[]}`, []string{"no keys: list at least one"}},
		{"empty name", `{"keys":[` + good + `,{"name":"","key":"0123456789abcdef-x","role":"admin"}]}`, []string{"key 1: name is empty"}},
		{"duplicate names", `{"keys":[` + good + `,{"name":"ok","key":"0123456789abcdef-y","role":"admin"}]}`, []string{`key 1 ("ok"): the name is used twice`}},
		{"key and sha256", `{"keys":[{"name":"both","key":"0123456789abcdef-b","sha256":"` + digest + `","role":"admin"}]}`, []string{`key 0 ("both"): give exactly one of key and sha256`}},
		{"neither key nor sha256", `{"keys":[` + good + `,{"name":"none","role":"admin"}]}`, []string{`key 1 ("none"): give exactly one of key and sha256`}},
		{"short key", `{"keys":[{"name":"short","key":"0123456789abcde","role":"admin"}]}`, []string{`key 0 ("short"): a key needs at least 16 characters and no spaces`}},
		{"space in a key", `{"keys":[{"name":"spaced","key":"0123456789 abcdef","role":"admin"}]}`, []string{`key 0 ("spaced"): a key needs at least 16 characters and no spaces`}},
		{"tab in a key", `{"keys":[{"name":"tabbed","key":"0123456789\tabcdef","role":"admin"}]}`, []string{`key 0 ("tabbed"): a key needs at least 16 characters and no spaces`}},
		{"leading space", `{"keys":[{"name":"lead","key":" 0123456789abcdefg","role":"admin"}]}`, []string{`key 0 ("lead"): a key needs at least 16 characters and no spaces`}},
		{"sha256 not hex", `{"keys":[{"name":"nothex","sha256":"` + strings.Repeat("zz", 32) + `","role":"admin"}]}`, []string{`key 0 ("nothex"): sha256 must be 64 hex digits`}},
		{"sha256 too short", `{"keys":[{"name":"shorthash","sha256":"abcd","role":"admin"}]}`, []string{`key 0 ("shorthash"): sha256 must be 64 hex digits`}},
		{"duplicate secret", `{"keys":[` + good + `,{"name":"again","key":"0123456789abcdef-ok","role":"admin"}]}`, []string{`key 1 ("again"): the same secret is listed twice`}},
		{"duplicate secret as a digest", `{"keys":[` + good + `,{"name":"hashed","sha256":"` + hexDigest("0123456789abcdef-ok") + `","role":"admin"}]}`, []string{`key 1 ("hashed"): the same secret is listed twice`}},
		{"provider without toolsets", `{"keys":[{"name":"p","key":"0123456789abcdef-p","role":"provider"}]}`, []string{`key 0 ("p"): a provider key lists the toolset globs it may publish`}},
		{"malformed glob", `{"keys":[{"name":"p","key":"0123456789abcdef-p","role":"provider","toolsets":["echo[","ok*"]}]}`, []string{`key 0 ("p"): toolset glob "echo[" is malformed`}},
		{"trailing backslash glob", `{"keys":[{"name":"p","key":"0123456789abcdef-p","role":"provider","toolsets":["echo\\"]}]}`, []string{`key 0 ("p"): toolset glob "echo\\" is malformed`}},
		{"empty glob", `{"keys":[{"name":"p","key":"0123456789abcdef-p","role":"provider","toolsets":[""]}]}`, []string{`key 0 ("p"): toolset glob "" is malformed`}},
		{"consumer with toolsets", `{"keys":[{"name":"c","key":"0123456789abcdef-c","role":"consumer","toolsets":["x"]}]}`, []string{`key 0 ("c"): only provider keys list toolsets`}},
		{"admin with toolsets", `{"keys":[{"name":"a","key":"0123456789abcdef-a","role":"admin","toolsets":["x"]}]}`, []string{`key 0 ("a"): only provider keys list toolsets`}},
		{"admin with confirm", `{"keys":[{"name":"a","key":"0123456789abcdef-a","role":"admin","confirm":["x.*"]}]}`, []string{`key 0 ("a"): an admin key may call every gated tool: drop "confirm"`}},
		{"provider with confirm", `{"keys":[{"name":"p","key":"0123456789abcdef-p","role":"provider","toolsets":["x"],"confirm":["x.*"]}]}`, []string{`key 0 ("p"): only consumer keys list "confirm"`}},
		{"malformed confirm glob", `{"keys":[{"name":"c","key":"0123456789abcdef-c","role":"consumer","confirm":["x.["]}]}`, []string{`key 0 ("c"): confirm glob "x.[" is malformed`}},
		{"unknown role", `{"keys":[{"name":"r","key":"0123456789abcdef-r","role":"root"}]}`, []string{`key 0 ("r"): role "root" is not provider, consumer or admin`}},
		{"no role", `{"keys":[{"name":"r","key":"0123456789abcdef-r"}]}`, []string{`key 0 ("r"): role "" is not provider, consumer or admin`}},
		{"every problem at once", `{"keys":[{"name":"x","key":"short","role":"root"},{"name":"x","role":"provider"}]}`, []string{
			`key 0 ("x"): a key needs at least 16 characters`, `key 0 ("x"): role "root"`,
			`key 1 ("x"): the name is used twice`, `key 1 ("x"): give exactly one of key and sha256`, `key 1 ("x"): a provider key lists`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := server.ParseKeys([]byte(tc.doc))
			if err == nil {
				t.Fatalf("ParseKeys accepted %s", tc.doc)
			}
			if k != nil {
				t.Errorf("ParseKeys returned keys with its error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			// The file reader reports the same, naming the file.
			file := filepath.Join(t.TempDir(), "keys.json")
			if err := os.WriteFile(file, []byte(tc.doc), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := server.ReadKeysFile(file); err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.want[0]) {
				t.Errorf("ReadKeysFile: %v", err)
			}
		})
	}
}

func hexDigest(secret string) string {
	d := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(d[:])
}

func TestKeysLookup(t *testing.T) {
	const (
		hashedSecret = "hashed-secret-0123456789"
		plainSecret  = "plain-secret-0123456789"
	)
	doc := `{"keys":[
		{"name":"hashed","sha256":"` + strings.ToUpper(hexDigest(hashedSecret)) + `","role":"consumer"},
		{"name":"plain","key":"` + plainSecret + `","role":"provider","toolsets":["echo","records.*"]}]}`
	file := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := server.ReadKeysFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !k.Configured() {
		t.Fatal("keys read from a file are not configured")
	}
	p, ok := k.Lookup(hashedSecret)
	if !ok || p.Name != "hashed" || p.Role != server.RoleConsumer || !p.MayConsume() || p.MayPublish("echo") {
		t.Fatalf("the sha256 entry's secret: %+v %v", p, ok)
	}
	p, ok = k.Lookup(plainSecret)
	if !ok || p.Name != "plain" || p.Role != server.RoleProvider || !slices.Equal(p.Toolsets, []string{"echo", "records.*"}) {
		t.Fatalf("the plain entry's secret: %+v %v", p, ok)
	}
	for name, want := range map[string]bool{"echo": true, "records.orders": true, "records": false, "echoes": false, "other": false} {
		if p.MayPublish(name) != want {
			t.Errorf("provider MayPublish(%q) = %v", name, !want)
		}
	}
	if p.MayConsume() {
		t.Error("a provider key may consume")
	}
	for _, wrong := range []string{"", hexDigest(hashedSecret), strings.ToUpper(hexDigest(hashedSecret)), plainSecret + " ", "Bearer " + plainSecret} {
		if p, ok := k.Lookup(wrong); ok {
			t.Errorf("Lookup(%q) = %+v", wrong, p)
		}
	}
	if _, err := server.ReadKeysFile(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "keys file") {
		t.Errorf("a missing keys file: %v", err)
	}
}

func TestKeysNotConfiguredLetEveryoneInAsAdmin(t *testing.T) {
	for _, k := range []*server.Keys{nil, {}} {
		if k.Configured() {
			t.Fatal("no keys are configured")
		}
		for _, secret := range []string{"", "anything"} {
			p, ok := k.Lookup(secret)
			if !ok || p.Role != server.RoleAdmin || !p.MayConsume() || !p.MayPublish("any.toolset") {
				t.Fatalf("Lookup(%q) with no keys: %+v %v", secret, p, ok)
			}
		}
	}
}

// A key must be sendable in an Authorization header, as the client's
// WithAPIKey requires: a control character (a line break, NUL) makes a
// key no request can carry, so the keys file must refuse it like a space.
func TestKeysFileRefusesKeysNoHeaderCarries(t *testing.T) {
	for _, key := range []string{`0123456789\nabcdef`, `0123456789\r\nabcdef`, `0123456789\u0000abcdef`, `0123456789\u007fabcdef`} {
		_, err := server.ParseKeys([]byte(`{"keys":[{"name":"ctl","key":"` + key + `","role":"admin"}]}`))
		if err == nil || !strings.Contains(err.Error(), `key 0 ("ctl")`) {
			t.Errorf("key %s: %v, want an error naming key 0", key, err)
		}
	}
}

// A keys file is one document: data after it (a second document pasted
// below the first, a stray brace) is refused, not silently dropped with
// the keys it lists.
func TestKeysFileRefusesDataAfterTheDocument(t *testing.T) {
	one := `{"keys":[{"name":"a","key":"0123456789abcdef-a","role":"admin"}]}`
	for _, doc := range []string{
		one + `{"keys":[{"name":"b","key":"0123456789abcdef-b","role":"consumer"}]}`,
		one + `}`,
		one + ` trailing`,
	} {
		if _, err := server.ParseKeys([]byte(doc)); err == nil {
			t.Errorf("ParseKeys accepted %s", doc)
		}
	}
}

// A consumer's "confirm" globs grant the gated tools it matches; an
// admin (and every caller of a keyless registry) may call every gated
// tool; a consumer without the field (every keys file before it) none.
func TestKeysConfirmGrant(t *testing.T) {
	k, err := server.ParseKeys([]byte(`{"keys":[
		{"name":"plain","key":"0123456789abcdef-p","role":"consumer"},
		{"name":"granted","key":"0123456789abcdef-g","role":"consumer","confirm":["workspace.commitStagedEdits","ops.*"]},
		{"name":"root","key":"0123456789abcdef-r","role":"admin"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(secret string) server.Principal {
		p, ok := k.Lookup(secret)
		if !ok {
			t.Fatalf("no key %s", secret)
		}
		return p
	}
	plain, granted, root := lookup("0123456789abcdef-p"), lookup("0123456789abcdef-g"), lookup("0123456789abcdef-r")
	keyless, _ := (*server.Keys)(nil).Lookup("")
	for _, tc := range []struct {
		p    server.Principal
		tool tools.Ident
		want bool
	}{
		{plain, "workspace.commitStagedEdits", false},
		{granted, "workspace.commitStagedEdits", true},
		{granted, "workspace.stageEdit", false},
		{granted, "ops.send_payment", true},
		{root, "workspace.commitStagedEdits", true},
		{keyless, "workspace.commitStagedEdits", true},
	} {
		if got := tc.p.MayConfirm(tc.tool); got != tc.want {
			t.Errorf("%q may confirm %s: %v, want %v", tc.p.Name, tc.tool, got, tc.want)
		}
	}
}
