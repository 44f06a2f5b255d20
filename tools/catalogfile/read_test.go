package catalogfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

func TestLoadValid(t *testing.T) {
	c, err := catalogfile.Load("testdata/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Source != "testdata/valid.json" {
		t.Errorf("Source = %q", c.Source)
	}
	if got := names(c); got != "openTable,listTables,ping" {
		t.Fatalf("names in file order = %s", got)
	}
	open := c.Tools[0]
	if open.Title != "Open table" || open.Description != "Open a table in the main grid." {
		t.Errorf("openTable text = %q, %q", open.Title, open.Description)
	}
	if strings.Join(open.Keywords, ",") != "grid,show" || strings.Join(open.Tags, ",") != "tables" {
		t.Errorf("openTable keywords %q tags %q", open.Keywords, open.Tags)
	}
	if !strings.HasPrefix(string(open.InputSchema), `{`) || !strings.Contains(string(open.InputSchema), `"required": ["table"]`) {
		t.Errorf("openTable schema not kept as written: %s", open.InputSchema)
	}
	if c.Tools[1].Title != "" {
		t.Errorf("null title read as %q, want empty", c.Tools[1].Title)
	}
	if got := string(c.Tools[2].InputSchema); got != `{"type":"object"}` {
		t.Errorf("missing inputSchema read as %s", got)
	}
	if n := c.Names(); len(n) != 3 || !n["ping"] || n["nope"] {
		t.Errorf("Names() = %v", n)
	}
	if tool, ok := c.Lookup("listTables"); !ok || tool.Name != "listTables" {
		t.Errorf("Lookup(listTables) = %v, %v", tool, ok)
	}
	if got := c.Unknown([]string{"ping", "zap", "zip", "zap"}); strings.Join(got, ",") != "zap,zip" {
		t.Errorf("Unknown = %v", got)
	}
}

func TestReadBareArray(t *testing.T) {
	f, err := os.Open("testdata/array.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := catalogfile.Read(f, "array.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) != 2 || c.Tools[0].Name != "a" || c.Tools[1].Name != "b" {
		t.Fatalf("tools = %+v", c.Tools)
	}
	if c.Tools[1].Keywords != nil || strings.Join(c.Tools[1].Tags, "|") != "x|y" {
		t.Errorf("b keywords %q tags %q", c.Tools[1].Keywords, c.Tools[1].Tags)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"name not a string", "bad_name.json", `catalogfile: bad_name.json:5:15: tools[1].name: expected a non-empty string, got number`},
		{"duplicate", "duplicate.json", `catalogfile: duplicate.json:4:12: tools[2].name: duplicate tool name "openTable": tools[0] at 2:3 has it already; names must be unique`},
		{"schema not object", "schema_not_object.json", `catalogfile: schema_not_object.json:2:40: tools[0].inputSchema: expected a JSON Schema object, got string`},
		{"syntax", "syntax.json", `catalogfile: syntax.json:2:24: invalid JSON: invalid character '"' after object key:value pair`},
		{"invalid schema", "invalid_schema.json", `catalogfile: invalid_schema.json:8:56: tools[0].inputSchema: invalid JSON Schema: at /properties/readOnly/description: got number, want string`},
		{"no tools key", "no_tools.json", `catalogfile: no_tools.json:1:1: expected a "tools" key holding the array of tools, or a JSON-RPC response whose "result" holds it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			_, err = catalogfile.Read(strings.NewReader(string(data)), tt.file)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
			}
			var ce *catalogfile.Error
			if !errors.As(err, &ce) || ce.Source != tt.file || ce.Line == 0 {
				t.Errorf("error is not a positioned *Error: %#v", err)
			}
		})
	}
}

func TestReadInlineErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty input", "", `catalogfile: x.json: expected a JSON object {"tools": [...]} or an array of tools, found no JSON value`},
		{"truncated", `{"tools": [`, `catalogfile: x.json:1:12: invalid JSON: unexpected end of input`},
		{"trailing data", `[] []`, `catalogfile: x.json:1:4: invalid JSON: unexpected data after the catalog's closing bracket`},
		{"scalar document", `  "tools"`, `catalogfile: x.json:1:3: expected a JSON object {"tools": [...]} or an array of tools, got string`},
		{"tools not array", `{"tools": {}}`, `catalogfile: x.json:1:11: tools: expected an array of tools, got object`},
		{"repeated tools key", `{"tools": [], "tools": []}`, `catalogfile: x.json:1:15: tools: repeated key: "tools" must appear once`},
		{"tool not object", `[{"name": "a"}, "b"]`, `catalogfile: x.json:1:17: tools[1]: expected a tool object, got string`},
		{"missing name", "[\n {\"title\": \"T\"}]", `catalogfile: x.json:2:2: tools[0].name: missing: every tool needs a non-empty string name`},
		{"empty name", `[{"name": ""}]`, `catalogfile: x.json:1:11: tools[0].name: expected a non-empty string, got an empty string`},
		{"null name", `[{"name": null}]`, `catalogfile: x.json:1:11: tools[0].name: expected a non-empty string, got null`},
		{"description not string", `[{"name": "a", "description": ["x"]}]`, `catalogfile: x.json:1:31: tools[0].description: expected a string, got array`},
		{"null schema", `[{"name": "a", "inputSchema": null}]`, `catalogfile: x.json:1:31: tools[0].inputSchema: expected a JSON Schema object, got null`},
		{"keywords not array", `[{"name": "a", "keywords": "x"}]`, `catalogfile: x.json:1:28: tools[0].keywords: expected an array of strings, got string`},
		{"tag not string", `[{"name": "a", "tags": ["x", 1]}]`, `catalogfile: x.json:1:30: tools[0].tags[1]: expected a string, got number`},
		{"repeated field", `[{"name": "a", "name": "b"}]`, `catalogfile: x.json:1:16: tools[0].name: repeated key: "name" must appear once per tool`},
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

func TestReadEmptyToolList(t *testing.T) {
	c, err := catalogfile.Read(strings.NewReader(`{"tools": []}`), "empty.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) != 0 {
		t.Fatalf("tools = %v", c.Tools)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := catalogfile.Load("testdata/does-not-exist.json")
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want a wrapped os.ErrNotExist", err)
	}
	if !strings.HasPrefix(err.Error(), "catalogfile: open testdata/does-not-exist.json") {
		t.Errorf("err = %v", err)
	}
}
