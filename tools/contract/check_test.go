package contract

import (
	"encoding/json"
	"testing"
)

// TestCheckAgreesWithCompile: Check reports what Compile reports, word for
// word, for valid declarations and for each kind of problem.
func TestCheckAgreesWithCompile(t *testing.T) {
	valid := docsToolset().Tools[0]
	valid.Toolset = "docs"
	decls := map[string]ToolDeclaration{"valid": valid}
	add := func(name string, mutate func(*ToolDeclaration)) {
		d := valid
		mutate(&d)
		decls[name] = d
	}
	add("bad ident", func(d *ToolDeclaration) { d.Name = "a b" })
	add("no title", func(d *ToolDeclaration) { d.Title = "" })
	add("bad schema", func(d *ToolDeclaration) {
		d.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":5}}}`)
	})
	add("not an object", func(d *ToolDeclaration) { d.InputSchema = json.RawMessage(`{"type":"array"}`) })
	add("empty keyword", func(d *ToolDeclaration) { d.Keywords = []string{" "} })
	add("repeated tag", func(d *ToolDeclaration) { d.Tags = []string{"x", "x"} })
	add("bad example", func(d *ToolDeclaration) { d.InputExample = json.RawMessage(`{"query":1}`) })
	for name, d := range decls {
		_, cerr := Compile(d)
		err := Check(d)
		if (err == nil) != (cerr == nil) || err != nil && err.Error() != cerr.Error() {
			t.Errorf("%s: Check = %v\nCompile = %v", name, err, cerr)
		}
		if (err == nil) != (name == "valid") {
			t.Errorf("%s: Check = %v", name, err)
		}
	}
}
