package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEcho(t *testing.T) {
	if got := echo("export  this\ntable"); got != `"export this table"` {
		t.Errorf("echo = %s", got)
	}
	long := strings.Repeat("é", 100)
	got := echo(long)
	if !strings.HasSuffix(got, `…"`) || utf8.RuneCountInString(got) != maxEchoRunes+2 {
		t.Errorf("echo of 100 runes = %s (%d runes), want %d runes and … inside the quotes", got, utf8.RuneCountInString(got), maxEchoRunes+2)
	}
	exact := strings.Repeat("a", maxEchoRunes)
	if got := echo(exact); got != `"`+exact+`"` {
		t.Errorf("a query of exactly %d runes was cut: %s", maxEchoRunes, got)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 tools", 1: "1 tool", 2: "2 tools"} {
		if got := count(n, "tool", "tools"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestOrList(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{{[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := orList(tt.names); got != tt.want {
			t.Errorf("orList(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

// TestLongQueryEchoedTruncated: a pasted paragraph is echoed on one line,
// cut to 80 runes.
func TestLongQueryEchoedTruncated(t *testing.T) {
	query := "zzzz " + strings.Repeat("qqqq ", 40)
	r := quiver(t, "search", "--catalog", "testdata/one.json", query).mustSucceed(t)
	want := "No tool of testdata/one.json (1 tool) matches " + echo(query) + ".\n"
	if r.stdout != want || !strings.Contains(r.stdout, "…") {
		t.Errorf("stdout\n got: %q\nwant: %q", r.stdout, want)
	}
}
