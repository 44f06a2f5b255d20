package catalogfile

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/quiver-go/quiver/tools"
)

// maxSchemaProblems bounds the metaschema violations one error lists.
const maxSchemaProblems = 3

// schemaProblem rewords a schema the runtime refuses: a schema that breaks
// the JSON Schema metaschema is described by its first violations, each
// with its JSON pointer in the schema ("at /properties/limit/minimum: got
// string, want number"), and the location of the first is returned so the
// error can point at it in the file; any other schema error is called an
// invalid JSON Schema, and a problem that is not (a root that is not an
// object schema) keeps its words.
func schemaProblem(msg string, err error) (string, []string) {
	var (
		sve *jsonschema.SchemaValidationError
		ve  *jsonschema.ValidationError
	)
	switch {
	case !errors.Is(err, tools.ErrInvalidSchema):
		return msg, nil
	case !errors.As(err, &sve) || !errors.As(sve.Err, &ve):
		return "invalid JSON Schema: " + strings.TrimPrefix(msg, "tools: invalid schema: "), nil
	}
	// The validator's order follows maps: sort, so that the same schema
	// always reads the same.
	p := message.NewPrinter(language.English)
	var leaves []schemaLeaf
	for _, l := range schemaLeaves(ve, nil) {
		leaves = append(leaves, schemaLeaf{l.InstanceLocation, "at " + pointer(l.InstanceLocation) + ": " + l.ErrorKind.LocalizedString(p)})
	}
	slices.SortFunc(leaves, func(a, b schemaLeaf) int { return strings.Compare(a.msg, b.msg) })
	leaves = slices.CompactFunc(leaves, func(a, b schemaLeaf) bool { return a.msg == b.msg })
	parts := make([]string, 0, maxSchemaProblems+1)
	for _, l := range leaves[:min(len(leaves), maxSchemaProblems)] {
		parts = append(parts, l.msg)
	}
	if more := len(leaves) - len(parts); more > 0 {
		parts = append(parts, "and "+strconv.Itoa(more)+" more")
	}
	return "invalid JSON Schema: " + strings.Join(parts, "; "), leaves[0].loc
}

// schemaLeaf is one metaschema violation: where, and said in full.
type schemaLeaf struct {
	loc []string
	msg string
}

// schemaLeaves returns the violations of e's subtree that have no causes.
func schemaLeaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = schemaLeaves(c, out)
	}
	return out
}

// pointer writes a location as a JSON pointer ("" is the root, "/").
func pointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, t := range loc {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// locate returns the offset of the value at loc within v, or v's own
// offset when loc leads nowhere.
func (r *reader) locate(v value, loc []string) int {
	for _, t := range loc {
		next, ok := r.child(v, t)
		if !ok {
			break
		}
		v = next
	}
	return v.off
}

// child returns the member named t of object v, or element t of array v.
func (r *reader) child(v value, t string) (value, bool) {
	switch kindOf(v.raw) {
	case "object":
		ms, err := r.members(v)
		if err != nil {
			return value{}, false
		}
		for _, m := range ms {
			if m.key == t {
				return m.val, true
			}
		}
	case "array":
		i, err := strconv.Atoi(t)
		if err != nil {
			return value{}, false
		}
		els, err := r.elements(v)
		if err != nil || i < 0 || i >= len(els) {
			return value{}, false
		}
		return els[i], true
	}
	return value{}, false
}
