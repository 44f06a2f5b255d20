package tools

import (
	"errors"
	"strings"
	"testing"
)

func TestParseIdent(t *testing.T) {
	valid := []struct {
		rule, in, toolset, tool string
	}{
		{"simple ident", "docs.search", "docs", "search"},
		{"splits at the last dot", "docs.search.query", "docs.search", "query"},
		{"toolset with many dots", "a.b.c.d", "a.b.c", "d"},
		{"unicode letters are allowed", "données.récupérer", "données", "récupérer"},
		{"punctuation other than dots is allowed", "my-set.start_export", "my-set", "start_export"},
	}
	for _, tc := range valid {
		t.Run(tc.rule, func(t *testing.T) {
			id, err := ParseIdent(tc.in)
			if err != nil {
				t.Fatalf("ParseIdent(%q): %v", tc.in, err)
			}
			if id.Toolset() != tc.toolset || id.Tool() != tc.tool {
				t.Errorf("ParseIdent(%q) = (%q, %q), want (%q, %q)", tc.in, id.Toolset(), id.Tool(), tc.toolset, tc.tool)
			}
		})
	}
	invalid := []struct {
		rule, in, want string
	}{
		{"needs a dot", "search", "has no dot"},
		{"empty input", "", "has no dot"},
		{"toolset must not be empty", ".search", "toolset name is empty"},
		{"tool must not be empty", "docs.", "tool name is empty"},
		{"toolset must not start with a dot", "..search", "empty dot segment"},
		{"toolset must not end with a dot", "docs..search", "empty dot segment"},
		{"toolset must not double dots", "a..b.search", "empty dot segment"},
		{"toolset must not hold whitespace", "my docs.search", "whitespace"},
		{"tool must not hold whitespace", "docs.full search", "whitespace"},
		{"tabs are whitespace", "docs.se\tarch", "whitespace"},
		{"control runes are refused", "docs.se\x00arch", "control character"},
		{"zero-width runes are refused", "docs.se\u200barch", "control character"},
		{"invalid UTF-8 is refused", "docs.se\xffarch", "not valid UTF-8"},
	}
	for _, tc := range invalid {
		t.Run(tc.rule, func(t *testing.T) {
			_, err := ParseIdent(tc.in)
			if err == nil {
				t.Fatalf("ParseIdent(%q) succeeded", tc.in)
			}
			if !errors.Is(err, ErrInvalidIdent) {
				t.Errorf("error %v does not wrap ErrInvalidIdent", err)
			}
			if !strings.HasPrefix(err.Error(), `tools: ident "`) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want prefix `tools: ident \"` and %q", err, tc.want)
			}
		})
	}
}

func TestNewIdent(t *testing.T) {
	id, err := NewIdent("docs.search", "query")
	if err != nil || id != "docs.search.query" {
		t.Fatalf(`NewIdent("docs.search", "query") = %q, %v`, id, err)
	}
	t.Run("tool names cannot contain dots", func(t *testing.T) {
		_, err := NewIdent("docs", "search.query")
		if !errors.Is(err, ErrInvalidIdent) || !strings.Contains(err.Error(), "contains a dot") {
			t.Fatalf("err = %v, want a dotted-tool error", err)
		}
	})
	t.Run("every problem is reported", func(t *testing.T) {
		_, err := NewIdent("a..b c", "x y\x01")
		var ie *IdentError
		if !errors.As(err, &ie) {
			t.Fatalf("err = %v, want *IdentError", err)
		}
		if len(ie.Problems) != 4 {
			t.Errorf("problems = %q, want 4 (empty segment, toolset whitespace, tool whitespace, control)", ie.Problems)
		}
	})
}

func TestJoinIdent(t *testing.T) {
	if id := JoinIdent("docs.search", "query"); id != "docs.search.query" || id.Toolset() != "docs.search" || id.Tool() != "query" {
		t.Errorf(`JoinIdent("docs.search", "query") = %q (parts %q, %q)`, id, id.Toolset(), id.Tool())
	}
	t.Run("does not validate", func(t *testing.T) {
		id := JoinIdent("", "a b")
		if id != ".a b" {
			t.Fatalf(`JoinIdent("", "a b") = %q, want ".a b"`, id)
		}
		if err := id.Validate(); !errors.Is(err, ErrInvalidIdent) {
			t.Errorf("Validate() = %v, want ErrInvalidIdent", err)
		}
	})
	t.Run("is what NewIdent returns", func(t *testing.T) {
		id, err := NewIdent("docs", "search")
		if err != nil || id != JoinIdent("docs", "search") {
			t.Errorf("NewIdent = %q, %v; JoinIdent = %q", id, err, JoinIdent("docs", "search"))
		}
	})
}

func TestIdentPartsWithoutDot(t *testing.T) {
	id := Ident("search")
	if id.Toolset() != "" || id.Tool() != "search" {
		t.Errorf("Ident(%q) parts = (%q, %q), want (\"\", \"search\")", id, id.Toolset(), id.Tool())
	}
}
