package catalogfile

import (
	"errors"
	"fmt"
	"strings"

	"github.com/quiver-go/quiver/tools"
)

// ErrInvalidName is wrapped by the *Error of a name problem: a name the
// runtime or a provider refuses, or two names that differ only in case.
// [ReadOptions.Lenient] turns these errors into warnings.
var ErrInvalidName = errors.New("invalid tool name")

// seenTool is where an ident or a case-folded ident was first seen.
type seenTool struct {
	name      string
	path      string // e.g. "tools[0]"
	line, col int    // of the tool's first byte
}

// nameIndex holds the tools read so far by the ident their names make, to
// refuse a name given twice (a repeated name makes a repeated ident) or
// two names making one ident.
type nameIndex struct {
	byIdent map[tools.Ident]seenTool
	byFold  map[string]seenTool // by lower-cased ident
}

func newNameIndex() nameIndex {
	return nameIndex{byIdent: map[tools.Ident]seenTool{}, byFold: map[string]seenTool{}}
}

// checkName checks the name of t, the tool of r at path: a name or ident
// already seen is an error; a name the runtime or a provider refuses, or
// one differing from another only in case, is a name problem, an error
// unless the options are lenient.
func (d *docReader) checkName(r *reader, t toolValue) error {
	namePath := t.path + ".name"
	here := seenTool{name: t.Name, path: t.path, line: r.line, col: r.col}
	id := t.Ident(DefaultToolset)
	if prev, dup := d.names.byIdent[id]; dup {
		if prev.name == t.Name {
			return r.errAt(t.nameOff, namePath, fmt.Sprintf("duplicate tool name %q: %s at %d:%d has it already; names must be unique", t.Name, prev.path, prev.line, prev.col), nil)
		}
		return r.errAt(t.nameOff, namePath, fmt.Sprintf("tool name %q names the tool %q, as %q does (%s at %d:%d): a name without a dot belongs to the toolset %q; rename one", t.Name, id, prev.name, prev.path, prev.line, prev.col, DefaultToolset), nil)
	}
	d.names.byIdent[id] = here
	problems := nameProblems(id)
	fold := strings.ToLower(string(id))
	if prev, dup := d.names.byFold[fold]; dup {
		problems = append(problems, fmt.Sprintf("it differs from %q (%s at %d:%d) only in case: providers and MCP clients may take them for one tool; rename one", prev.name, prev.path, prev.line, prev.col))
	} else {
		d.names.byFold[fold] = here
	}
	if len(problems) == 0 {
		return nil
	}
	e := r.errAt(t.nameOff, namePath, strings.Join(problems, "; "), ErrInvalidName)
	if !d.opts.Lenient {
		return e
	}
	d.cat.Warnings = append(d.cat.Warnings, e)
	return nil
}

// nameProblems returns what the runtime refuses in the ident, or else what
// a provider refuses in its tool name.
func nameProblems(id tools.Ident) []string {
	if err := id.Validate(); err != nil {
		var ie *tools.IdentError
		if errors.As(err, &ie) {
			return ie.Problems
		}
		return []string{err.Error()}
	}
	if tool := id.Tool(); !tools.ValidWireName(tool) {
		msg := fmt.Sprintf("tool name %q is not one providers accept: use 1 to %d ASCII letters, digits, '_' or '-'", tool, tools.MaxWireNameLen)
		if w, err := tools.NewWireNames([]tools.Ident{id}); err == nil {
			if wire, ok := w.Wire(id); ok {
				msg += fmt.Sprintf(" (the runtime would show the model %q)", wire)
			}
		}
		return []string{msg}
	}
	return nil
}
