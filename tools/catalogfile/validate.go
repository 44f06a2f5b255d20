package catalogfile

import (
	"errors"
	"strings"

	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// placeholderIdent stands for a tool whose name makes no valid ident, so
// that a lenient read still checks the rest of the tool.
const placeholderIdent = tools.Ident(DefaultToolset + ".tool")

// compile checks t, the tool of r, as the runtime does: it checks the
// tool's declaration with contract.Check (what contract.Compile refuses,
// without indexing the text) and reports what it refuses,
// positioned at the input schema when the problem is the schema's. Name
// problems were reported by checkName.
func (r *reader) compile(t toolValue) *Error {
	id := t.Ident(DefaultToolset)
	if id.Validate() != nil {
		id = placeholderIdent
	}
	err := contract.Check(t.declaration(id))
	if err == nil {
		return nil
	}
	var de *contract.DeclarationError
	if !errors.As(err, &de) {
		return r.errAt(0, t.path, "the runtime refuses this tool: "+err.Error(), err)
	}
	var other []string
	for _, p := range de.Problems {
		rest, ok := strings.CutPrefix(p.Error(), "input_schema")
		if !ok {
			other = append(other, p.Error())
			continue
		}
		msg, loc := schemaProblem(strings.TrimPrefix(rest, ": "), p)
		off := t.schemaOff
		if loc != nil {
			off = r.locate(value{raw: t.InputSchema, off: t.schemaOff}, loc)
		}
		return r.errAt(off, t.schemaPath, msg, err)
	}
	if len(other) > 0 {
		return r.errAt(0, t.path, "the runtime refuses this tool: "+strings.Join(other, "; "), err)
	}
	return nil
}
