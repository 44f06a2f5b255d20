package catalogfile_test

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

// names returns the names of c's tools, joined by commas.
func names(c *catalogfile.Catalog) string {
	var out []string
	for _, t := range c.Tools {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

func TestReadFormats(t *testing.T) {
	tests := []struct {
		format, in string
	}{
		{"tools/list result", `{"tools": [{"name": "a"}, {"name": "b"}]}`},
		{"bare array", `[{"name": "a"}, {"name": "b"}]`},
		{"JSON-RPC response", `{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a"}, {"name": "b"}], "_meta": {"x": [1, {"y": 2}]}}}`},
		{"JSON-RPC response, result first", `{"result": {"tools": [{"name": "a"}, {"name": "b"}]}, "id": "req-7", "jsonrpc": "2.0"}`},
		{"UTF-8 byte order mark", "\xef\xbb\xbf" + `{"tools": [{"name": "a"}, {"name": "b"}]}`},
		{"input_schema", `[{"name": "a", "input_schema": {"type": "object"}}, {"name": "b"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			c, err := catalogfile.Read(strings.NewReader(tt.in), "x.json")
			if err != nil {
				t.Fatal(err)
			}
			if got := names(c); got != "a,b" {
				t.Errorf("tools = %s, want a,b", got)
			}
			if len(c.Warnings) != 0 {
				t.Errorf("warnings = %v", c.Warnings)
			}
		})
	}
}

func TestReadFormatErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"JSON-RPC error response", `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}`,
			`catalogfile: x.json:1:29: error: the file is a JSON-RPC error response, not a tools/list result: -32601 "Method not found"`},
		{"result without tools", `{"jsonrpc": "2.0", "id": 1, "result": {"items": []}}`,
			`catalogfile: x.json:1:39: result: expected a "tools" key holding the array of tools`},
		{"result not an object", `{"jsonrpc": "2.0", "id": 1, "result": [{"name": "a"}]}`,
			`catalogfile: x.json:1:39: result: expected an object {"tools": [...]}, the result of tools/list, got array`},
		{"tools twice", `{"tools": [], "result": {"tools": []}}`,
			`catalogfile: x.json:1:26: result.tools: the document holds tools at tools and at result.tools: keep one`},
		{"positions after a byte order mark", "\xef\xbb\xbf" + `{"tools": [{"name": 1}]}`,
			`catalogfile: x.json:1:21: tools[0].name: expected a non-empty string, got number`},
		{"paths in a JSON-RPC response", `{"result": {"tools": [{"name": "a"}, {"name": "a"}]}}`,
			`catalogfile: x.json:1:47: result.tools[1].name: duplicate tool name "a": result.tools[0] at 1:23 has it already; names must be unique`},
		{"syntax error in the envelope", `{"jsonrpc": "2.0" "result": {}}`,
			`catalogfile: x.json:1:19: invalid JSON: invalid character '"' after object key:value pair`},
		{"syntax error in a skipped value", `{"id": {"a": tru}, "tools": []}`,
			`catalogfile: x.json:1:17: invalid JSON: invalid character '}' in literal true (expecting 'e')`},
		{"comma out of place", `[,{"name": "a"}]`,
			`catalogfile: x.json:1:2: invalid JSON: invalid character ',' looking for beginning of value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalogfile.Read(strings.NewReader(tt.in), "x.json")
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
			}
		})
	}
}

func TestReadWarnsOfMorePages(t *testing.T) {
	in := `{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a"}],
  "nextCursor": "page-2"}}`
	c, err := catalogfile.Read(strings.NewReader(in), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 {
		t.Fatalf("warnings = %v, want one", c.Warnings)
	}
	want := `catalogfile: x.json:2:17: result.nextCursor: the server has more tools: this file holds one page of tools/list; request the next pages with this cursor and merge their tools arrays`
	if got := c.Warnings[0].Error(); got != want {
		t.Errorf("warning\n got: %s\nwant: %s", got, want)
	}
}
