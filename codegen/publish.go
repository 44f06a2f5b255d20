package codegen

import (
	"fmt"
	"path"
	"slices"

	goacodegen "goa.design/goa/v3/codegen"

	"github.com/quiver-go/quiver/expr"
)

// publicationData is one registry a service publishes a toolset to: the
// helpers publish.go renders for it in the toolset's package.
type publicationData struct {
	// Expr is the publication (PublishTo in the service's Export).
	Expr *expr.PublicationExpr
	// Registry is the registry's name in the design.
	Registry string
	// Service is the name of the exporting service.
	Service string
	// ClientImport is the import path of the registry's generated client
	// package (relative to the gen package until toolsetPackages.add
	// completes it).
	ClientImport string
	// Func is the serving helper ("PublishToCorp"); RegistrationFunc the
	// function returning its registration ("CorpRegistration").
	Func, RegistrationFunc string
	// Description replaces Toolset()'s description when the export of a
	// top-level toolset gives one ("" keeps it).
	Description string
	// Tags replace Toolset()'s tags when the export of a top-level toolset
	// adds some: the toolset's own, then the export's, each once (nil keeps
	// them).
	Tags []string
}

// buildPublications computes the publications of ts, a local toolset that
// services export with PublishTo (pubs, in declaration order). One
// registry receives the toolset from one export only: two exports
// publishing it there would register two declarations under one name.
func buildPublications(ts *expr.ToolsetExpr, pubs []*expr.PublicationExpr) ([]*publicationData, error) {
	var out []*publicationData
	for _, p := range pubs {
		e := p.Export
		if i := slices.IndexFunc(out, func(d *publicationData) bool { return d.Expr.Registry == p.Registry }); i >= 0 {
			return nil, fmt.Errorf("quiver codegen: toolset %q is published to registry %q by the %s and by the %s: publish it from one export", ts.Name, p.Registry.Name, out[i].Expr.Export.EvalName(), e.EvalName())
		}
		goName := goacodegen.Goify(p.Registry.Name, true)
		d := &publicationData{
			Expr:             p,
			Registry:         p.Registry.Name,
			Service:          e.Service.Name,
			ClientImport:     path.Join("registries", packageName(p.Registry.Name)),
			Func:             "PublishTo" + goName,
			RegistrationFunc: goName + "Registration",
		}
		if e.Toolset != nil {
			// An export of a top-level toolset annotates it as published;
			// an inline export's annotations are its toolset's own.
			d.Description = e.Description
			if len(e.Tags) > 0 {
				for _, tag := range slices.Concat(ts.Tags, e.Tags) {
					if !slices.Contains(d.Tags, tag) {
						d.Tags = append(d.Tags, tag)
					}
				}
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// publishFile returns publish.go of a toolset package that services
// publish to registries, or nil when none does.
func publishFile(data *toolsetData) *goacodegen.File {
	if len(data.Publications) == 0 {
		return nil
	}
	header := goacodegen.Header(fmt.Sprintf("Toolset %q registry publication", data.Expr.Name), data.Package, []*goacodegen.ImportSpec{
		{Path: "context"},
		{Path: "github.com/quiver-go/quiver/registry"},
		{Path: "github.com/quiver-go/quiver/toolcall"},
	})
	return &goacodegen.File{
		Path: path.Join(toolsetDir(data), "publish.go"),
		SectionTemplates: []*goacodegen.SectionTemplate{header,
			{Name: "quiver-publish", Source: publishT, Data: data, FuncMap: funcs}},
	}
}
