package catalogfile

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// DefaultToolset is the toolset of a tool whose name holds no dot, when
// nothing else is said: reading checks each name as the ident
// DefaultToolset + "." + name.
const DefaultToolset = "catalog"

// Ident returns the ident of t when the names without a dot belong to
// toolset: a name with a dot is an ident already ("workspace.openTable":
// tool openTable of toolset workspace, split at the last dot); any other
// is tools.JoinIdent(toolset, name). The ident is not validated.
func (t Tool) Ident(toolset string) tools.Ident {
	if strings.Contains(t.Name, ".") {
		return tools.Ident(t.Name)
	}
	return tools.JoinIdent(toolset, t.Name)
}

// Declarations returns the runtime declarations of c's tools, in file
// order, the tools whose names hold no dot belonging to toolset (see
// [Tool.Ident]). Each declaration carries the tool's ident split into
// Toolset and Name, its title (the bare tool name when the file has none:
// the runtime requires one), description, keywords, tags and input
// schema. Give them to [contract.CompileToolset], in a ToolsetDeclaration
// named toolset, when every tool belongs to it, or compile them one by one
// with [contract.Compile].
//
// A catalog returned by [Read] or [Load] without [ReadOptions.Lenient]
// compiles: reading checked every tool with [contract.Check], which refuses
// what [contract.Compile] refuses. Declarations fails
// when a name makes no valid ident (a lenient read, or an invalid toolset)
// or when two names make one ident.
func (c *Catalog) Declarations(toolset string) ([]contract.ToolDeclaration, error) {
	out := make([]contract.ToolDeclaration, 0, len(c.Tools))
	first := make(map[tools.Ident]string, len(c.Tools))
	var errs []error
	for _, t := range c.Tools {
		id := t.Ident(toolset)
		if err := id.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", t.Name, err))
			continue
		}
		if prev, dup := first[id]; dup {
			errs = append(errs, fmt.Errorf("tools %q and %q both make the ident %q: rename one", prev, t.Name, id))
			continue
		}
		first[id] = t.Name
		out = append(out, t.declaration(id))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("catalogfile: %s: %w", c.Source, errors.Join(errs...))
	}
	return out, nil
}

// declaration returns the declaration of t under the ident id.
func (t Tool) declaration(id tools.Ident) contract.ToolDeclaration {
	title := t.Title
	if strings.TrimSpace(title) == "" {
		title = id.Tool()
	}
	return contract.ToolDeclaration{
		Toolset:     id.Toolset(),
		Name:        id.Tool(),
		Title:       title,
		Description: t.Description,
		Tags:        slices.Clone(t.Tags),
		Keywords:    slices.Clone(t.Keywords),
		InputSchema: slices.Clone(t.InputSchema),
	}
}
