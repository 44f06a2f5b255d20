package upstream

import (
	"strings"
	"testing"
)

// TestMapNamesCollision: a dotted name that would take a listed tool's
// name is skipped, whichever comes first; the tool named so keeps its
// name.
func TestMapNamesCollision(t *testing.T) {
	for _, listed := range [][]Tool{
		{{Name: "a.b"}, {Name: "a_b"}, {Name: "c.d"}},
		{{Name: "a_b"}, {Name: "a.b"}, {Name: "c.d"}},
	} {
		names, skipped := mapNames("ts", listed)
		if len(names) != 2 || names["a_b"] != "a_b" || names["c_d"] != "c.d" {
			t.Fatalf("names %v", names)
		}
		if len(skipped) != 1 || skipped[0].Name != "a.b" || !strings.Contains(skipped[0].Reason, `"a_b"`) {
			t.Fatalf("skipped %v", skipped)
		}
	}
	// Two dotted names making one name: the second is skipped.
	names, skipped := mapNames("ts", []Tool{{Name: "x.y"}, {Name: "x_y.z"}, {Name: "x.y_z"}})
	if len(names) != 2 || names["x_y_z"] != "x_y.z" || len(skipped) != 1 || skipped[0].Name != "x.y_z" {
		t.Fatalf("names %v skipped %v", names, skipped)
	}
}
