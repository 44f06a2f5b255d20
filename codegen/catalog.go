package codegen

import (
	"encoding/json"
	"fmt"
	"path"

	goacodegen "goa.design/goa/v3/codegen"
)

// catalogTool is one tool of tool_schemas.json, in the catalog-file format
// (package tools/catalogfile).
type catalogTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Keywords    []string        `json:"keywords,omitempty"`
	Tags        []string        `json:"tags,omitempty"`
}

// catalogFile returns tool_schemas.json of a toolset package: each tool
// under its ident, with its model-facing payload schema, keywords and tags
// (the toolset's first).
func catalogFile(data *toolsetData) (*goacodegen.File, error) {
	doc := struct {
		Tools []catalogTool `json:"tools"`
	}{Tools: []catalogTool{}}
	for _, t := range data.Tools {
		doc.Tools = append(doc.Tools, catalogTool{
			Name:        string(t.Spec.Name),
			Title:       t.Spec.Title,
			Description: t.Spec.Description,
			InputSchema: t.Spec.Payload.Schema,
			Keywords:    t.Keywords,
			Tags:        t.Spec.Tags,
		})
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("quiver codegen: toolset %q: encode tool_schemas.json: %w", data.Expr.Name, err)
	}
	out = append(out, '\n')
	return &goacodegen.File{
		Path: path.Join(toolsetDir(data), "tool_schemas.json"),
		SectionTemplates: []*goacodegen.SectionTemplate{{
			Name:    "quiver-tool-schemas",
			Source:  verbatimT,
			Data:    string(out),
			FuncMap: nil,
		}},
	}, nil
}
