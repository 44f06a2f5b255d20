package contract

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools"
)

func FuzzCompile(f *testing.F) {
	f.Add("docs", "search", "Search", `{"type":"object","properties":{"q":{"type":"string"}}}`, `{"q":"x"}`, "q", "q")
	f.Add("a.b", "c", "", `{"type":"object","required":["s"],"properties":{"s":{"type":"string"},"c":{"type":"integer"}}}`, `{}`, "s", "c")
	f.Add("x", "y", "T", `{"type":"object","properties":"nope"}`, ``, "p", "")
	f.Add("x", "y", "T", `{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"properties":{"k":{"type":"string"}}}}}`, `{"k":1}`, "", "k")
	f.Add("..", ".", " ", `[]`, `[`, "", "")
	f.Fuzz(func(t *testing.T, toolset, name, title, schema, example, inject, cursor string) {
		d := ToolDeclaration{
			Toolset: toolset, Name: name, Title: title,
			InputSchema:  json.RawMessage(schema),
			InputExample: json.RawMessage(example),
		}
		if inject != "" {
			d.Inject = strings.Split(inject, ",")
		}
		if cursor != "" {
			d.Bounds = &tools.BoundsSpec{Cursor: cursor}
		}
		spec, err := Compile(d)
		if cerr := Check(d); (cerr == nil) != (err == nil) || cerr != nil && cerr.Error() != err.Error() {
			t.Fatalf("Check and Compile disagree:\nCheck:   %v\nCompile: %v", cerr, err)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidDeclaration) {
				t.Fatalf("Compile error is not an ErrInvalidDeclaration: %v", err)
			}
			return
		}
		if err := spec.Validate(); err != nil {
			t.Fatalf("Compile returned an invalid spec: %v", err)
		}
		for _, f := range spec.Inject {
			if spec.Payload.Property(f.Name).Declared {
				t.Fatalf("injected field %q is visible to the model", f.Name)
			}
		}
		if _, err := FingerprintTool(d); err != nil {
			t.Fatalf("a compilable declaration cannot be fingerprinted: %v", err)
		}
	})
}
