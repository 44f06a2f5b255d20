package advertised

import (
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// FileToolset is the toolset Definitions puts a catalog file's tool in when
// its name holds no dot, the one catalogfile checks names in. A name with
// dots is read as an ident ("workspace.openTable": tool openTable of
// toolset workspace).
const FileToolset = catalogfile.DefaultToolset

// Ident returns the ident Definitions gives the catalog file tool named
// name: name itself when it holds a dot, else FileToolset + "." + name
// (catalogfile.Tool.Ident).
func Ident(name string) tools.Ident {
	return catalogfile.Tool{Name: name}.Ident(FileToolset)
}

// Definitions returns the definitions the runtime's catalog advertises for
// a catalog file's tools, the tools for which inline reports false
// (called with the file's names) being deferred; a nil inline keeps every
// tool inline. Each tool becomes a tools.ToolSpec — its Ident, title,
// description, tags, input schema as written in the file, and a search
// document over them and its keywords, as contract.Compile builds one —
// and the specs go through catalog.New and
// Catalog.AdvertisedToolDefinitions unchanged: ident order, the catalog's
// wire names (the bare tool name unless two tools share it), deferred
// flags and search documents. Schemas are not closed or validated as
// contract.Compile would: the figure is that of the file's definitions. A
// name that makes no valid ident, or two names making one, is an error.
func Definitions(list []catalogfile.Tool, inline func(name string) bool) ([]model.ToolDefinition, error) {
	entries := make([]catalog.Entry, 0, len(list))
	for _, t := range list {
		id := Ident(t.Name)
		if err := id.Validate(); err != nil {
			return nil, fmt.Errorf("advertised: tool %q: %w", t.Name, err)
		}
		spec := tools.ToolSpec{
			Name:        id,
			Title:       t.Title,
			Description: t.Description,
			Tags:        slices.Clone(t.Tags),
			Payload:     tools.TypeSpec{Schema: slices.Clone(t.InputSchema)},
		}
		spec.Search = search.NewDocument(spec.SearchSource(t.Keywords...))
		entries = append(entries, catalog.Entry{Spec: spec, Deferred: inline != nil && !inline(t.Name)})
	}
	c, err := catalog.New(entries, catalog.Filter{}, nil)
	if err != nil {
		return nil, fmt.Errorf("advertised: %w", err)
	}
	return c.AdvertisedToolDefinitions(), nil
}
