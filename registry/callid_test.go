package registry_test

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/registry"
)

func TestCallIDRule(t *testing.T) {
	for id, ok := range map[string]bool{
		"run-1:call_1":           true,
		"a":                      true,
		"mcp-0a1b-mcp-3":         true,
		"A.b_c:d-e":              true,
		strings.Repeat("x", 256): true,
		strings.Repeat("x", 257): false,
		"":                       false,
		".":                      false,
		"..":                     false,
		"-x":                     false,
		"a/b":                    false,
		"%2F":                    false,
		"a b":                    false,
		"a\x00":                  false,
		"a\n":                    false,
		"é":                      false,
	} {
		if got := registry.ValidCallID(id); got != ok {
			t.Errorf("ValidCallID(%.40q) = %v, want %v", id, got, ok)
		}
		if err := registry.CheckCallID(id); (err == nil) != ok {
			t.Errorf("CheckCallID(%.40q) = %v", id, err)
		} else if err != nil && len(err.Error()) > 300 {
			t.Errorf("CheckCallID's error repeats the id: %d bytes", len(err.Error()))
		}
	}
}

// Ids inside the alphabet are kept as earlier releases sent them, so a
// call recorded before an upgrade is retried under the same id; ids
// outside it are hashed, the same way every time.
func TestCallIDForKeepsValidIDsAndHashesOthers(t *testing.T) {
	if got := registry.CallIDFor("run-1", "call_1"); got != "run-1:call_1" {
		t.Fatalf("CallIDFor kept no valid id: %q", got)
	}
	a := registry.CallIDFor("tenant/42", "call_1")
	if !registry.ValidCallID(a) || !strings.HasPrefix(a, "qh1-") || a != registry.CallIDFor("tenant/42", "call_1") {
		t.Fatalf("CallIDFor(tenant/42) = %q", a)
	}
	// Length-prefixed: moving the separator gives another id.
	if registry.CallIDFor("a/b", "c") == registry.CallIDFor("a", "b/c") || registry.CallIDFor("x/", "y") == registry.CallIDFor("x", "/y") {
		t.Fatal("two calls share a hashed id")
	}
	if got := registry.CallIDFor(strings.Repeat("r", 300), "c"); !registry.ValidCallID(got) {
		t.Fatalf("a long run id gave %q", got)
	}
}
