package catalogfile_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

// TestReadRefusesWhatTheRuntimeRefuses lists, one rule per case, what the
// runtime (contract.Compile) or a provider refuses, each reported as a
// positioned error.
func TestReadRefusesWhatTheRuntimeRefuses(t *testing.T) {
	tests := []struct {
		rule, in, want string
		name           bool // a name problem, which ReadOptions.Lenient downgrades
	}{
		{"schemas follow the metaschema", `[{"name": "a", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": "1"}}}}]`,
			`catalogfile: x.json:1:101: tools[0].inputSchema: invalid JSON Schema: at /properties/n/minimum: got string, want number`, false},
		{"schemas are self-contained", `[{"name": "a", "inputSchema": {"type": "object", "properties": {"n": {"$ref": "https://example.com/n.json"}}}}]`,
			`catalogfile: x.json:1:31: tools[0].inputSchema: invalid JSON Schema: `, false},
		{"arguments are an object", `[{"name": "a", "inputSchema": {"type": "array"}}]`,
			`catalogfile: x.json:1:31: tools[0].inputSchema: root "type" must be "object": models send arguments as one JSON object`, false},
		{"input_schema is read too", `[{"name": "a", "input_schema": {"type": "string"}}]`,
			`catalogfile: x.json:1:32: tools[0].input_schema: root "type" must be "object"`, false},
		{"one spelling of the schema", `[{"name": "a", "inputSchema": {"type": "object"}, "input_schema": {"type": "object"}}]`,
			`catalogfile: x.json:1:51: tools[0].input_schema: repeated key: "inputSchema" and "input_schema" both give the input schema; keep one`, false},
		{"no whitespace in names", `[{"name": "get weather"}]`,
			`catalogfile: x.json:1:11: tools[0].name: tool name "get weather" contains whitespace: use '_' or '-' instead`, true},
		{"no control characters in names", `[{"name": "get\u0007weather"}]`,
			`catalogfile: x.json:1:11: tools[0].name: tool name "get\aweather" contains the control character U+0007: remove it`, true},
		{"no empty dot segments", `[{"name": "docs..search"}]`,
			`catalogfile: x.json:1:11: tools[0].name: toolset name "docs." has an empty dot segment`, true},
		{"names providers accept", `[{"name": "météo"}]`,
			`catalogfile: x.json:1:11: tools[0].name: tool name "météo" is not one providers accept: use 1 to 64 ASCII letters, digits, '_' or '-' (the runtime would show the model "m_t_o")`, true},
		{"names of at most 64 bytes", `[{"name": "` + strings.Repeat("a", 65) + `"}]`,
			`catalogfile: x.json:1:11: tools[0].name: tool name "` + strings.Repeat("a", 65) + `" is not one providers accept`, true},
		{"names differ by more than case", "[{\"name\": \"getUser\"},\n {\"name\": \"GetUser\"}]",
			`catalogfile: x.json:2:11: tools[1].name: it differs from "getUser" (tools[0] at 1:2) only in case: providers and MCP clients may take them for one tool; rename one`, true},
		{"one name per ident", "[{\"name\": \"a\"},\n {\"name\": \"catalog.a\"}]",
			`catalogfile: x.json:2:11: tools[1].name: tool name "catalog.a" names the tool "catalog.a", as "a" does (tools[0] at 1:2): a name without a dot belongs to the toolset "catalog"; rename one`, false},
		{"UTF-8 text", "[{\"name\": \"a\", \"description\": \"caf\xe9\"}]",
			`catalogfile: x.json:1:35: tools[0]: invalid UTF-8: a catalog is UTF-8 text; convert the file (for example iconv -f latin1 -t utf-8)`, false},
		{"no control characters in text", `[{"name": "a", "title": "A\u001b[31m"}]`,
			`catalogfile: x.json:1:25: tools[0].title: contains the control character U+001B: remove it (tab and line breaks are the only ones allowed)`, false},
		{"no empty keywords", `[{"name": "a", "keywords": ["x", " "]}]`,
			`catalogfile: x.json:1:34: tools[0].keywords[1]: empty keyword: remove it or write the term`, false},
		{"no repeated tags", `[{"name": "a", "tags": ["x", "y", "x"]}]`,
			`catalogfile: x.json:1:35: tools[0].tags[2]: tag "x" is repeated: tools[0].tags[0] has it already`, false},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			_, err := catalogfile.Read(strings.NewReader(tt.in), "x.json")
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n got: %s\nwant: %s…", err, tt.want)
			}
			var ce *catalogfile.Error
			if !errors.As(err, &ce) || ce.Line == 0 || ce.Path == "" {
				t.Errorf("not a positioned *Error: %#v", err)
			}
			if got := errors.Is(err, catalogfile.ErrInvalidName); got != tt.name {
				t.Errorf("errors.Is(err, ErrInvalidName) = %v, want %v", got, tt.name)
			}
		})
	}
}

func TestReadAcceptsWhatTheRuntimeAccepts(t *testing.T) {
	in := `[
  {"name": "workspace.openTable", "inputSchema": {"type": "object", "additionalProperties": true}},
  {"name": "get-weather_2", "description": "Tabs\tand\nlines are text."},
  {"name": "docs.search.find", "title": "Find", "tags": ["read"], "keywords": ["lookup"]}
]`
	c, err := catalogfile.Read(strings.NewReader(in), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) != 3 || len(c.Warnings) != 0 {
		t.Errorf("tools %d, warnings %v", len(c.Tools), c.Warnings)
	}
}

// TestReadReportsProblemsInFileOrder: tools are checked by batches in
// parallel, but the problems are still reported in file order, whatever
// kind each problem is.
func TestReadReportsProblemsInFileOrder(t *testing.T) {
	tool := func(i int) string { return `{"name": "t` + strconv.Itoa(i) + `"}` }
	badSchema := `{"name": "bad", "inputSchema": {"type": "object", "properties": {"n": {"type": 5}}}}`
	for _, tt := range []struct {
		name  string
		after string // what follows the tool with a bad schema, some tools later
		want  string
	}{
		{"then a bad name", `{"name": "a b"}`, "tools[3].inputSchema"},
		{"then a duplicate", `{"name": "t0"}`, "tools[3].inputSchema"},
		{"then a syntax error", `{"name": }`, "tools[3].inputSchema"},
		{"then another bad schema", badSchema, "tools[3].inputSchema"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var parts []string
			for i := range 200 {
				switch i {
				case 3:
					parts = append(parts, badSchema)
				case 150:
					parts = append(parts, tt.after)
				default:
					parts = append(parts, tool(i))
				}
			}
			_, err := catalogfile.Read(strings.NewReader("["+strings.Join(parts, ",\n")+"]"), "x.json")
			lines := strings.Split(fmt.Sprint(err), "\n")
			if err == nil || len(lines) != 2 || !strings.Contains(lines[0], ": "+tt.want+": ") || !strings.Contains(lines[1], ":151:") {
				t.Errorf("err = %v, want the problem at %s, then the one at line 151", err, tt.want)
			}
		})
	}
}
