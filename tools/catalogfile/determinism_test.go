package catalogfile_test

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

// TestReadErrorsAreDeterministic: a catalog whose tools' schemas have
// several problems is refused, or warned about, in the same words every
// time.
func TestReadErrorsAreDeterministic(t *testing.T) {
	tests := []struct {
		name, in, want string
		lenient        bool
	}{
		{"metaschema violations", `[{"name": "a", "inputSchema": {"type": "object", "properties": {
			"z": {"type": 5}, "y": {"minimum": "1"}, "x": {"pattern": "("}, "w": {"patternProperties": {"[": {}}}},
			"$defs": {"v": {"type": "nope"}}}}]`,
			`invalid JSON Schema: at /$defs/v/type: got string, want array; at /$defs/v/type: value must be one of`, false},
		{"unresolvable references", `[{"name": "a", "inputSchema": {"type": "object", "properties": {
			"z": {"$ref": "#/$defs/nope3"}, "b": {"$ref": "#/$defs/nope2"}, "a": {"$ref": "#/$defs/nope1"}}}}]`,
			`invalid JSON Schema: json-pointer in "quiver:///schema.json#/$defs/nope1" not found`, false},
		{"warnings of a lenient read", `[{"name": "a", "inputSchema": {"type": "object", "properties": {
			"b": {"$anchor": "x"}, "a": {"$anchor": "x"}, "d": {"$anchor": "y"}, "c": {"$anchor": "y"}}}},
			{"name": "b", "inputSchema": {"type": "object", "properties": {"b": {"$ref": "#nope2"}, "a": {"$ref": "#nope1"}}}}]`,
			`duplicate anchor "x" in "quiver:///schema.json" at "/properties/a" and "/properties/b"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := func() string {
				cat, err := catalogfile.ReadOptions{Lenient: tt.lenient}.Read(strings.NewReader(tt.in), "x.json")
				if !tt.lenient {
					if err == nil {
						t.Fatal("no error")
					}
					return err.Error()
				}
				if err != nil {
					t.Fatal(err)
				}
				var ws []string
				for _, w := range cat.Warnings {
					ws = append(ws, w.Error())
				}
				return strings.Join(ws, "\n")
			}
			first := read()
			if !strings.Contains(first, tt.want) {
				t.Errorf("got %s\nwant it to contain %s", first, tt.want)
			}
			for i := range 200 {
				if got := read(); got != first {
					t.Fatalf("read %d reports\n%s\nread 0 reported\n%s", i+1, got, first)
				}
			}
		})
	}
}
