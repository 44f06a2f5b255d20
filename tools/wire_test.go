package tools

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var wireNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkWireNames asserts the WireNames invariants for a set of idents.
func checkWireNames(t testing.TB, idents []Ident) *WireNames {
	t.Helper()
	w, err := NewWireNames(idents)
	if err != nil {
		t.Fatalf("NewWireNames(%q): %v", idents, err)
	}
	if w.Len() != len(idents) {
		t.Fatalf("Len = %d, want %d", w.Len(), len(idents))
	}
	if got := w.Idents(); !slices.IsSorted(got) || len(got) != len(idents) {
		t.Fatalf("Idents() = %q: want %d sorted idents", got, len(idents))
	}
	seen := make(map[string]Ident)
	for _, id := range idents {
		wire, ok := w.Wire(id)
		if !ok {
			t.Fatalf("no wire name for %q", id)
		}
		if !wireNameRE.MatchString(wire) || !ValidWireName(wire) {
			t.Errorf("wire name %q of %q does not match %s", wire, id, wireNameRE)
		}
		if back, ok := w.Ident(wire); !ok || back != id {
			t.Errorf("Ident(%q) = %q, %v; want %q", wire, back, ok, id)
		}
		if other, dup := seen[wire]; dup {
			t.Errorf("%q and %q share wire name %q", other, id, wire)
		}
		seen[wire] = id
	}
	// The mapping depends only on the set.
	shuffled := slices.Clone(idents)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	w2, err := NewWireNames(shuffled)
	if err != nil {
		t.Fatalf("NewWireNames(shuffled): %v", err)
	}
	for _, id := range idents {
		a, _ := w.Wire(id)
		b, _ := w2.Wire(id)
		if a != b {
			t.Errorf("wire name of %q depends on order: %q vs %q", id, a, b)
		}
	}
	return w
}

func TestWireNames(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct {
		rule   string
		idents []Ident
		want   map[Ident]string // exact names where the rule fixes them
	}{
		{"a unique bare name is the wire name", []Ident{"docs.search", "files.read"},
			map[Ident]string{"docs.search": "search", "files.read": "read"}},
		{"colliding bare names are qualified", []Ident{"a.x", "b.x", "c.y"},
			map[Ident]string{"a.x": "a_x", "b.x": "b_x", "c.y": "y"}},
		{"dots in toolsets become underscores", []Ident{"docs.v2.search", "web.search"},
			map[Ident]string{"docs.v2.search": "docs_v2_search", "web.search": "web_search"}},
		{"underscore placement does not fool qualification", []Ident{"a_b.c", "a.b_c"},
			map[Ident]string{"a_b.c": "c", "a.b_c": "b_c"}},
		{"qualified names colliding with each other are hashed", []Ident{"a_b.c", "a.b_c", "x.c", "z.b_c"}, nil},
		{"a bare name colliding with a qualified one is hashed", []Ident{"a.x", "b.x", "q.a_x"},
			map[Ident]string{"b.x": "b_x"}},
		{"sanitizing can make names collide", []Ident{"docs.café", "docs.cafè", "docs.caf_"}, nil},
		{"unicode runes become one underscore each", []Ident{"données.récupérer"},
			map[Ident]string{"données.récupérer": "r_cup_rer"}},
		{"dashes are kept", []Ident{"my-set.start-export"}, map[Ident]string{"my-set.start-export": "start-export"}},
		{"long bare names are hashed", []Ident{Ident("docs." + long)}, nil},
		{"long toolsets are hashed when qualified", []Ident{Ident(long + ".x"), Ident(long + "y.x")}, nil},
		{"a hashed-looking tool name cannot steal a hash", []Ident{"a.x", "b.x", "q.a_x", Ident("r." + hashedWire("a.x", minHashLen))}, nil},
		{"many tools with one bare name", manyIdents(200, func(i int) string { return "set" + strings.Repeat("z", i%7) + ".run" + strings.Repeat("_", i%3) }), nil},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			w := checkWireNames(t, dedupe(tc.idents))
			for id, want := range tc.want {
				if got, _ := w.Wire(id); got != want {
					t.Errorf("Wire(%q) = %q, want %q", id, got, want)
				}
			}
		})
	}
}

func manyIdents(n int, f func(int) string) []Ident {
	out := make([]Ident, n)
	for i := range out {
		out[i] = Ident(f(i))
	}
	return out
}

func dedupe(ids []Ident) []Ident {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

func TestWireNamesHashedForm(t *testing.T) {
	long := Ident("docs." + strings.Repeat("q", 100))
	w := checkWireNames(t, []Ident{long})
	got, _ := w.Wire(long)
	if !regexp.MustCompile(`^docs_q+_[0-9a-f]{8}$`).MatchString(got) || len(got) != MaxWireNameLen {
		t.Errorf("Wire(long) = %q (%d bytes), want docs_qqq…_<8 hex>, 64 bytes", got, len(got))
	}
	w = checkWireNames(t, []Ident{"a.x", "b.x", "q.a_x"})
	for _, id := range []Ident{"a.x", "q.a_x"} {
		got, _ := w.Wire(id)
		if !regexp.MustCompile(`^[a-z_]+_[0-9a-f]{8}$`).MatchString(got) {
			t.Errorf("Wire(%q) = %q, want a hashed name", id, got)
		}
	}
}

func TestNewWireNamesRejects(t *testing.T) {
	t.Run("duplicate idents", func(t *testing.T) {
		_, err := NewWireNames([]Ident{"a.x", "b.y", "a.x", "a.x"})
		if !errors.Is(err, ErrDuplicateIdent) || strings.Count(err.Error(), "duplicate") != 1 {
			t.Fatalf("err = %v, want one ErrDuplicateIdent", err)
		}
	})
	t.Run("invalid idents", func(t *testing.T) {
		_, err := NewWireNames([]Ident{"a.x", "nodot"})
		if !errors.Is(err, ErrInvalidIdent) {
			t.Fatalf("err = %v, want ErrInvalidIdent", err)
		}
	})
	t.Run("empty set", func(t *testing.T) {
		w, err := NewWireNames(nil)
		if err != nil || w.Len() != 0 {
			t.Fatalf("NewWireNames(nil) = %v, %v", w, err)
		}
	})
}

func TestNilWireNames(t *testing.T) {
	var w *WireNames
	if _, ok := w.Wire("a.b"); ok {
		t.Error("nil Wire found a name")
	}
	if _, ok := w.Ident("b"); ok {
		t.Error("nil Ident found an ident")
	}
	if w.Len() != 0 || w.Idents() != nil {
		t.Error("nil WireNames is not empty")
	}
}

func TestValidWireName(t *testing.T) {
	cases := map[string]bool{
		"search": true, "start_export": true, "a-b": true, "A9": true,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false,
		"": false, "a.b": false, "a b": false, "café": false, "a/b": false,
	}
	for in, want := range cases {
		if got := ValidWireName(in); got != want || got != wireNameRE.MatchString(in) {
			t.Errorf("ValidWireName(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzNewWireNames(f *testing.F) {
	f.Add("a.x\nb.x\nq.a_x")
	f.Add("a_b.c\na.b_c\nx.c\nz.b_c")
	f.Add("docs.café\ndocs.cafè\ndocs.caf_")
	f.Add(strings.Repeat("t", 90) + ".x\n" + strings.Repeat("t", 90) + "y.x")
	f.Fuzz(func(t *testing.T, text string) {
		var idents []Ident
		for _, line := range strings.Split(text, "\n") {
			idents = append(idents, Ident(line))
		}
		if _, err := NewWireNames(idents); err != nil {
			if !errors.Is(err, ErrInvalidIdent) && !errors.Is(err, ErrDuplicateIdent) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		checkWireNames(t, idents)
	})
}
