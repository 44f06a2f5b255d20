package catalogfile_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

func TestLenientReadWarnsOfNameProblems(t *testing.T) {
	in := `[
  {"name": "get weather"},
  {"name": "getUser"},
  {"name": "GetUser"},
  {"name": "ok"}
]`
	lenient := catalogfile.ReadOptions{Lenient: true}
	c, err := lenient.Read(strings.NewReader(in), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c); got != "get weather,getUser,GetUser,ok" {
		t.Errorf("tools = %s: a lenient read keeps every tool", got)
	}
	want := []string{
		`catalogfile: x.json:2:12: tools[0].name: tool name "get weather" contains whitespace: use '_' or '-' instead`,
		`catalogfile: x.json:4:12: tools[2].name: it differs from "getUser" (tools[1] at 3:3) only in case: providers and MCP clients may take them for one tool; rename one`,
	}
	if len(c.Warnings) != len(want) {
		t.Fatalf("warnings = %v, want %d", c.Warnings, len(want))
	}
	for i, w := range c.Warnings {
		if w.Error() != want[i] {
			t.Errorf("warning %d\n got: %s\nwant: %s", i, w, want[i])
		}
		if !errors.Is(w, catalogfile.ErrInvalidName) {
			t.Errorf("warning %d does not match ErrInvalidName", i)
		}
	}
	if _, err := catalogfile.Read(strings.NewReader(in), "x.json"); !errors.Is(err, catalogfile.ErrInvalidName) {
		t.Errorf("a strict read: err = %v, want the first name problem", err)
	}
}

func TestLenientReadStillRefusesTheRest(t *testing.T) {
	lenient := catalogfile.ReadOptions{Lenient: true}
	for _, in := range []string{
		`[{"name": "a"}, {"name": "a"}]`,                         // the same name twice
		`[{"name": "a", "title": "\u0000"}]`,                     // control character in text
		"[{\"name\": \"a\", \"description\": \"\xff\"}]",         // invalid UTF-8
		`[{"name": "a", "inputSchema": {"type": "string"}}]`,     // arguments not an object
		`[{"name": "a", "tags": ["x", "x"]}]`,                    // repeated tag
		`{"jsonrpc": "2.0", "id": 1, "error": {"code": -32000}}`, // an error response
	} {
		_, err := lenient.Read(strings.NewReader(in), "x.json")
		if err == nil || errors.Is(err, catalogfile.ErrInvalidName) {
			t.Errorf("%s: err = %v, want an error other than a name problem", in, err)
		}
	}
}

func TestLenientReadWarnsOfSchemasTheRuntimeRefuses(t *testing.T) {
	// An older draft's boolean exclusiveMinimum, as third-party catalogs
	// carry it.
	in := `[{"name": "a", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}}}]`
	if _, err := catalogfile.Read(strings.NewReader(in), "x.json"); err == nil || !strings.Contains(err.Error(), "exclusiveMinimum") {
		t.Fatalf("a strict read: err = %v, want the schema refused", err)
	}
	cat, err := catalogfile.ReadOptions{Lenient: true}.Read(strings.NewReader(in), "x.json")
	if err != nil || len(cat.Tools) != 1 || len(cat.Warnings) != 1 || !strings.Contains(cat.Warnings[0].Error(), "exclusiveMinimum") {
		t.Fatalf("a lenient read: %+v, %v", cat, err)
	}
}
