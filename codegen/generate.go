package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"unicode"

	goacodegen "goa.design/goa/v3/codegen"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/tools"
)

// PluginName is the name the plugin registers with Goa.
const PluginName = "quiver"

// init registers Generate with goa gen: importing this package in a
// design's tooling enables Quiver's code generation.
func init() {
	goacodegen.RegisterPlugin(PluginName, "gen", nil, Generate)
}

// Warnings receives the design's code generation warnings
// (expr.RootExpr.Warnings) as Generate prints them; tests may replace it.
var Warnings = func(msg string) { fmt.Fprintln(os.Stderr, "quiver: warning: "+msg) }

// Generate is the goa gen plugin: it returns files with the files of every
// local toolset (top-level, declared inline in a Use or an Export, with
// the helpers publishing it when a service's export says PublishTo), the
// agenttools package of every agent's export, the files of every registry,
// the completions package of every service declaring completions,
// and of every agent consuming only local toolsets, other
// agents' exports and registry sources, of the Quiver root found in roots
// appended (see the package documentation).
// genpkg is the import path of the gen package. A design without a Quiver
// root is left alone.
func Generate(genpkg string, roots []eval.Root, files []*goacodegen.File) ([]*goacodegen.File, error) {
	var root *expr.RootExpr
	var api *goaexpr.APIExpr
	for _, r := range roots {
		switch r := r.(type) {
		case *expr.RootExpr:
			root = r
		case *goaexpr.RootExpr:
			api = r.API
		}
	}
	if root == nil {
		return files, nil
	}
	if api == nil {
		api = goaexpr.NewAPIExpr("api", func() {})
	}
	for _, w := range root.Warnings {
		Warnings(w)
	}
	if err := checkPassthroughs(root); err != nil {
		return nil, err
	}
	pkgs := newToolsetPackages(api, genpkg)
	if err := pkgs.collect(root); err != nil {
		return nil, err
	}
	for _, data := range pkgs.list {
		catalog, err := catalogFile(data)
		if err != nil {
			return nil, err
		}
		files = append(files, typesFile(data), specsFile(data), catalog)
		adapters, err := adapterFile(genpkg, roots, data)
		if err != nil {
			return nil, err
		}
		if adapters != nil {
			files = append(files, adapters)
		}
		if publish := publishFile(data); publish != nil {
			files = append(files, publish)
		}
		if client := mcpClientFile(data); client != nil {
			files = append(files, client)
		}
	}
	registries, err := registryFiles(root, pkgs.dirs)
	if err != nil {
		return nil, err
	}
	files = append(files, registries...)
	servers, err := mcpFiles(genpkg, roots, root, pkgs)
	if err != nil {
		return nil, err
	}
	files = append(files, servers...)
	completions, err := buildCompletions(api, root, genpkg, pkgs.dirs)
	if err != nil {
		return nil, err
	}
	for _, c := range completions {
		files = append(files, completionFiles(c)...)
	}
	agentTools, byExport, err := buildAgentTools(root, pkgs)
	if err != nil {
		return nil, err
	}
	for _, at := range agentTools {
		files = append(files, agentToolsFile(at))
	}
	agents, err := buildAgents(root, pkgs, byExport)
	if err != nil {
		return nil, err
	}
	for _, a := range agents {
		files = append(files, agentFiles(a)...)
	}
	if len(agents) > 0 && !root.DisableAgentDocs {
		files = append(files, quickstartFile(genpkg, agents, pkgs.list, agentTools, completions))
	}
	return files, nil
}

// toolsetDir returns the directory of a toolset package, relative to the
// output directory.
func toolsetDir(data *toolsetData) string { return data.Dir }

// typesFile returns types.go of a toolset package.
func typesFile(data *toolsetData) *goacodegen.File {
	var imports []*goacodegen.ImportSpec
	if data.unions {
		imports = []*goacodegen.ImportSpec{{Path: "encoding/json"}, {Path: "fmt"}}
	}
	header := goacodegen.Header(fmt.Sprintf("Toolset %q payload and result types", data.Expr.Name), data.Package, imports)
	return &goacodegen.File{
		Path: path.Join(toolsetDir(data), "types.go"),
		SectionTemplates: []*goacodegen.SectionTemplate{header,
			{Name: "quiver-types", Source: typesT, Data: data, FuncMap: funcs}},
	}
}

// specsFile returns specs.go of a toolset package.
func specsFile(data *toolsetData) *goacodegen.File {
	header := goacodegen.Header(fmt.Sprintf("Toolset %q tool specs", data.Expr.Name), data.Package, []*goacodegen.ImportSpec{
		{Path: "encoding/json"},
		{Path: "fmt"},
		{Path: "strings"},
		{Path: "github.com/quiver-go/quiver/search"},
		{Path: "github.com/quiver-go/quiver/tools"},
		{Path: "github.com/quiver-go/quiver/tools/contract"},
	})
	sections := []*goacodegen.SectionTemplate{header,
		{Name: "quiver-idents", Source: identsT, Data: data, FuncMap: funcs}}
	for _, t := range data.Tools {
		sections = append(sections, &goacodegen.SectionTemplate{Name: "quiver-tool", Source: toolT, Data: t, FuncMap: funcs})
	}
	sections = append(sections, &goacodegen.SectionTemplate{Name: "quiver-toolset", Source: toolsetT, Data: data, FuncMap: funcs})
	return &goacodegen.File{Path: path.Join(toolsetDir(data), "specs.go"), SectionTemplates: sections}
}

// mcpClientFile returns mcp.go of an MCP-backed toolset's package, or nil
// for any other toolset.
func mcpClientFile(data *toolsetData) *goacodegen.File {
	if data.MCP == nil {
		return nil
	}
	header := goacodegen.Header(fmt.Sprintf("Toolset %q served by MCP: registration", data.Expr.Name), data.Package, []*goacodegen.ImportSpec{
		{Path: "context"},
		{Path: "errors"},
		{Path: "fmt"},
		{Path: "github.com/quiver-go/quiver/mcp/upstream"},
		{Path: "github.com/quiver-go/quiver/runtime"},
	})
	return &goacodegen.File{
		Path: path.Join(toolsetDir(data), "mcp.go"),
		SectionTemplates: []*goacodegen.SectionTemplate{header,
			{Name: "quiver-mcp-client", Source: mcpClientT, Data: data, FuncMap: funcs}},
	}
}

// funcs are the template functions rendering Go literals.
var funcs = map[string]any{
	"strs":         stringsLit,
	"rawJSON":      rawJSONLit,
	"lit":          stringLit,
	"typeSpec":     typeSpecLit,
	"keys":         sortedKeys[[]string],
	"lower":        lowerFirst,
	"exposure":     exposureLit,
	"audience":     audienceLit,
	"injectSource": injectSourceLit,
	"metaField":    metaFieldLit,
}

// stringsLit renders a []string literal, nil when empty.
func stringsLit(ss []string) string {
	if len(ss) == 0 {
		return "nil"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

// rawJSONLit renders JSON as a json.RawMessage literal, raw-quoted when
// it can be.
func rawJSONLit(raw json.RawMessage) string {
	return "json.RawMessage(" + stringLit(string(raw)) + ")"
}

// stringLit quotes s, preferring a raw string literal.
func stringLit(s string) string {
	if !strings.ContainsAny(s, "`\r") && strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// typeSpecLit renders a compiled TypeSpec as a tools.MustTypeSpec call,
// with its declared example.
func typeSpecLit(t tools.TypeSpec) string {
	if t.IsZero() {
		return "tools.TypeSpec{}"
	}
	lit := fmt.Sprintf("tools.MustTypeSpec(%q, %s)", t.Name, rawJSONLit(t.Schema))
	if t.Example != nil {
		lit = fmt.Sprintf("mustExample(%s, %s)", lit, stringLit(string(bytes.TrimSpace(t.Example.Raw))))
	}
	return lit
}

// lowerFirst lower-cases the first letter of an exported name.
func lowerFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// exposureLit names the tools constant of an exposure tier.
func exposureLit(e tools.Exposure) string {
	switch e {
	case tools.ExposureReadOnly:
		return "tools.ExposureReadOnly"
	case tools.ExposureStaging:
		return "tools.ExposureStaging"
	case tools.ExposureFull:
		return "tools.ExposureFull"
	case tools.ExposureExcluded:
		return "tools.ExposureExcluded"
	}
	return fmt.Sprintf("tools.Exposure(%q)", string(e))
}

// audienceLit names the tools constant of a server-data audience.
func audienceLit(a tools.Audience) string {
	switch a {
	case tools.AudienceTimeline:
		return "tools.AudienceTimeline"
	case tools.AudienceInternal:
		return "tools.AudienceInternal"
	case tools.AudienceEvidence:
		return "tools.AudienceEvidence"
	}
	return fmt.Sprintf("tools.Audience(%q)", string(a))
}

// injectSourceLit names the tools constant of an injection source.
func injectSourceLit(s tools.InjectSource) string {
	if s == tools.InjectMeta {
		return "tools.InjectMeta"
	}
	return "tools.InjectLabel"
}

// metaFieldLit names the tools constant of a CallMeta field.
func metaFieldLit(f tools.MetaField) string {
	names := map[tools.MetaField]string{
		tools.MetaRunID: "MetaRunID", tools.MetaSessionID: "MetaSessionID", tools.MetaTurnID: "MetaTurnID",
		tools.MetaToolCallID: "MetaToolCallID", tools.MetaParentToolCallID: "MetaParentToolCallID",
	}
	return "tools." + names[f]
}
