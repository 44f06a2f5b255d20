package catalogfile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/search"
)

// Catalog is the content of one catalog file.
type Catalog struct {
	// Source names where the catalog was read from (the path given to [Load],
	// the source given to [Read]).
	Source string
	// Tools are the catalog's tools in file order, with unique names.
	Tools []Tool
	// Warnings are the problems a read reported without failing, in file
	// order: name problems under [ReadOptions.Lenient] (they wrap
	// [ErrInvalidName]), and a tools/list result that says more pages follow.
	Warnings []*Error
}

// Tool is one tool of a catalog file.
type Tool struct {
	// Name is the tool's unique, non-empty name.
	Name string
	// Title is the human title, possibly empty.
	Title string
	// Description says what the tool does, possibly empty.
	Description string
	// InputSchema is the JSON Schema object of the tool's arguments, as
	// written in the file ({"type":"object"} when the file has none).
	InputSchema json.RawMessage
	// Keywords are extra search terms.
	Keywords []string
	// Tags classify the tool; search indexes them with the keywords.
	Tags []string
}

// Names returns the set of the catalog's tool names.
func (c *Catalog) Names() map[string]bool {
	out := make(map[string]bool, len(c.Tools))
	for _, t := range c.Tools {
		out[t.Name] = true
	}
	return out
}

// Lookup returns the tool of that name.
func (c *Catalog) Lookup(name string) (Tool, bool) {
	for _, t := range c.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Unknown returns, in the order given and without repeats, the names that
// are not tools of the catalog.
func (c *Catalog) Unknown(names []string) []string {
	known := c.Names()
	var out []string
	for _, n := range names {
		if !known[n] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// NewIndex returns a search index with parameters p holding every tool of
// the catalog, each under its name.
func (c *Catalog) NewIndex(p search.Params) (*search.Index, error) {
	return c.index(p, false)
}

// TakeIndex is [Catalog.NewIndex] for a caller done with the tools' input
// schemas: it releases each one once its search text is taken, so a large
// catalog is not held beside its index. The tools keep every other field.
func (c *Catalog) TakeIndex(p search.Params) (*search.Index, error) {
	return c.index(p, true)
}

func (c *Catalog) index(p search.Params, release bool) (*search.Index, error) {
	ix, err := search.NewIndex(p)
	if err != nil {
		return nil, fmt.Errorf("catalogfile: %s: %w", c.Source, err)
	}
	db := search.NewDocumentBuilder()
	for i := range c.Tools {
		src := c.Tools[i].SearchSource()
		if release {
			c.Tools[i].InputSchema = nil
		}
		if err := ix.Add(db.Build(src)); err != nil {
			return nil, fmt.Errorf("catalogfile: %s: tool %q: %w", c.Source, src.Name, err)
		}
	}
	return ix, nil
}

// NewBaseline returns the baseline ranker holding every tool of the
// catalog: its name and description, as [search.Baseline] defines.
func (c *Catalog) NewBaseline() (*search.Baseline, error) {
	b := search.NewBaseline()
	for _, t := range c.Tools {
		if err := b.Add(t.Name, t.Description); err != nil {
			return nil, fmt.Errorf("catalogfile: %s: tool %q: %w", c.Source, t.Name, err)
		}
	}
	return b, nil
}

// SearchSource returns the text search indexes for t: its name, title and
// description; its keywords followed by its tags; and the top-level
// properties of its input schema, sorted by name, with their descriptions.
// A schema without an object "properties" contributes no arguments, and a
// property without a string "description" an argument without one.
func (t Tool) SearchSource() search.Source {
	return search.Source{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		Keywords:    append(slices.Clone(t.Keywords), t.Tags...),
		Args:        schemaArgs(t.InputSchema),
	}
}

// schemaArgs lists the top-level properties of a JSON Schema object.
func schemaArgs(schema json.RawMessage) []search.Arg {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	args := make([]search.Arg, 0, len(s.Properties))
	for name, prop := range s.Properties {
		var p struct {
			Description json.RawMessage `json:"description"`
		}
		var desc string
		if json.Unmarshal(prop, &p) == nil {
			// A non-string description is not text to index.
			_ = json.Unmarshal(p.Description, &desc)
		}
		args = append(args, search.Arg{Name: name, Description: desc})
	}
	slices.SortFunc(args, func(a, b search.Arg) int { return strings.Compare(a.Name, b.Name) })
	return args
}
