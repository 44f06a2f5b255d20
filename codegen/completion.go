package codegen

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	goacodegen "goa.design/goa/v3/codegen"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/tools"
)

// completionsData is what the completions package of one service renders:
// the Go types of its completions' results and one value per completion.
type completionsData struct {
	// Service is the service declaring the completions.
	Service *goaexpr.ServiceExpr
	// Completions are the service's completions in declaration order.
	Completions []*completionData
	// Types are the Go types of the results, with the user types and
	// unions they refer to.
	Types []typeDef
	// Dir is the package directory relative to the output directory:
	// gen/<service>/completions.
	Dir string
	// Import is the package's import path.
	Import string
	// unions is true when Types declare a union, whose methods import
	// encoding/json and fmt.
	unions bool
}

// completionsPackage is the Go package name of every completions package.
const completionsPackage = "completions"

// completionData is one completion of a completions package.
type completionData struct {
	// Expr is the completion.
	Expr *expr.CompletionExpr
	// GoName is the exported value's name ("DraftFromTranscript"); the
	// unexported schema, codec and example are named after it.
	GoName string
	// TypeName is the value's type ("DraftFromTranscriptCompletion"),
	// which embeds *completion.Completion[Result].
	TypeName string
	// Result is the Go type the answer decodes into ("*Draft"); ResultName
	// the type's name without its pointer ("Draft").
	Result, ResultName string
	// Schema is the result's JSON Schema, closed like a payload's: the
	// model writes the answer, so a property the design does not declare
	// is a violation.
	Schema json.RawMessage
	// Example is the root result's declared example, checked against
	// Schema at generation time, or nil: Example() is generated only
	// when it is set.
	Example json.RawMessage
}

// buildCompletions computes the completions package of each service
// declaring completions, in the order of each service's first completion.
// dirs maps the package directories generated so far to what generates
// them; the completions packages are added to it.
func buildCompletions(api *goaexpr.APIExpr, root *expr.RootExpr, genpkg string, dirs map[string]string) ([]*completionsData, error) {
	var list []*completionsData
	byService := map[*goaexpr.ServiceExpr][]*expr.CompletionExpr{}
	var services []*goaexpr.ServiceExpr
	for _, c := range root.Completions {
		if _, ok := byService[c.Service]; !ok {
			services = append(services, c.Service)
		}
		byService[c.Service] = append(byService[c.Service], c)
	}
	for _, svc := range services {
		data, err := buildServiceCompletions(api, svc, byService[svc])
		if err != nil {
			return nil, err
		}
		rel := path.Join(packageName(svc.Name), completionsPackage)
		data.Dir = path.Join(goacodegen.Gendir, rel)
		data.Import = path.Join(genpkg, rel)
		where := fmt.Sprintf("the completions of service %q", svc.Name)
		if other, ok := dirs[data.Dir]; ok {
			return nil, fmt.Errorf("quiver codegen: %s and %s both generate package %q: rename one", other, where, data.Dir)
		}
		dirs[data.Dir] = where
		list = append(list, data)
	}
	return list, nil
}

// buildServiceCompletions computes the completions package of svc. The
// result types are declared first, so they keep the design's names; a
// completion whose Go names are taken — by another completion (names
// differing only in '_', '-' or case) or by a type of the package — is
// refused with the locations of both.
func buildServiceCompletions(api *goaexpr.APIExpr, svc *goaexpr.ServiceExpr, cs []*expr.CompletionExpr) (*completionsData, error) {
	data := &completionsData{Service: svc}
	types := newTypeGen()
	for _, c := range cs {
		cd := &completionData{Expr: c, GoName: completionGoName(c.Name)}
		cd.TypeName = cd.GoName + "Completion"
		cd.ResultName, cd.Result = completionResultType(types, cd.GoName, c)
		data.Completions = append(data.Completions, cd)
	}
	declared := map[string]bool{}
	for _, d := range types.defs {
		declared[d.Name] = true
	}
	owners := map[string]*completionData{}
	for _, cd := range data.Completions {
		for _, name := range []string{cd.GoName, cd.TypeName} {
			if other, ok := owners[name]; ok {
				return nil, fmt.Errorf("quiver codegen: %s%s and %s%s are both named %s in Go (package %s of service %q): rename one",
					designAt(other.Expr.Location), other.Expr.EvalName(), designAt(cd.Expr.Location), cd.Expr.EvalName(), name, completionsPackage, svc.Name)
			}
			if declared[name] {
				return nil, fmt.Errorf("quiver codegen: %s%s is named %s in Go, the name of a type of its package %s (service %q): rename the completion or the type",
					designAt(cd.Expr.Location), cd.Expr.EvalName(), name, completionsPackage, svc.Name)
			}
			owners[name] = cd
		}
		if err := cd.buildSchema(api); err != nil {
			return nil, fmt.Errorf("quiver codegen: %s%s: %w", designAt(cd.Expr.Location), cd.Expr.EvalName(), err)
		}
	}
	data.Types = types.defs
	data.unions = types.unions
	return data, nil
}

// completionGoName returns the Go name of a completion's value: its name
// in Go's exported form, prefixed with "Completion" when it starts with a
// digit (valid completion names may).
func completionGoName(name string) string {
	n := goacodegen.Goify(name, true)
	if n != "" && n[0] >= '0' && n[0] <= '9' {
		n = "Completion" + n
	}
	return n
}

// completionResultType declares the Go type of c's result with types and
// returns its name and the type the answer decodes into. A user type
// keeps its design name; an inline object is <GoName>Result. Structs (and
// unions) decode into pointers, other types (strings, arrays, maps and
// user types based on them) into values.
func completionResultType(types *typeGen, goName string, c *expr.CompletionExpr) (name, ref string) {
	att := c.Return
	if _, ok := att.Type.(goaexpr.UserType); !ok && goaexpr.IsObject(att.Type) {
		name = types.unique(goName + "Result")
		types.declare(name, fmt.Sprintf("%s is the result of %s.", name, c.EvalName()), att)
		return name, "*" + name
	}
	types.declareNested(att)
	ref = types.scope.GoFullTypeRef(tagged(att), "")
	name = strings.TrimPrefix(ref, "*")
	if _, ok := resolve(att).Type.(*goaexpr.Union); ok || goaexpr.IsObject(resolve(att).Type) {
		ref = "*" + name
	}
	return name, ref
}

// buildSchema computes the result's closed JSON Schema and its declared
// root example, and checks the example against the schema: an example
// that breaks it fails generation.
func (cd *completionData) buildSchema(api *goaexpr.APIExpr) error {
	s, err := attributeSchema(api, cd.Expr.Return)
	if err != nil {
		return fmt.Errorf("result: %w", err)
	}
	closeObjects(s)
	if cd.Schema, err = s.JSON(); err != nil {
		return fmt.Errorf("encode the result schema: %w", err)
	}
	spec, err := tools.NewTypeSpec(cd.ResultName, cd.Schema)
	if err != nil {
		return fmt.Errorf("result: %w", err)
	}
	if s.Example == nil {
		return nil
	}
	if cd.Example, err = json.Marshal(s.Example); err != nil {
		return fmt.Errorf("encode the result's example: %w", err)
	}
	if err := spec.Validate(cd.Example); err != nil {
		return fmt.Errorf("the result's Example breaks its schema: %w", err)
	}
	return nil
}

// completionFiles returns types.go and completions.go of a completions
// package.
func completionFiles(data *completionsData) []*goacodegen.File {
	var typeImports []*goacodegen.ImportSpec
	if data.unions {
		typeImports = []*goacodegen.ImportSpec{{Path: "encoding/json"}, {Path: "fmt"}}
	}
	imports := []*goacodegen.ImportSpec{
		{Path: "encoding/json"},
		{Path: "github.com/quiver-go/quiver/completion"},
		{Path: "github.com/quiver-go/quiver/tools"},
	}
	return []*goacodegen.File{
		{
			Path: path.Join(data.Dir, "types.go"),
			SectionTemplates: []*goacodegen.SectionTemplate{
				goacodegen.Header(fmt.Sprintf("Service %q completion result types", data.Service.Name), completionsPackage, typeImports),
				{Name: "quiver-types", Source: typesT, Data: data, FuncMap: funcs},
			},
		},
		{
			Path: path.Join(data.Dir, "completions.go"),
			SectionTemplates: []*goacodegen.SectionTemplate{
				goacodegen.Header(fmt.Sprintf("Service %q typed completions", data.Service.Name), completionsPackage, imports),
				{Name: "quiver-completions", Source: completionsT, Data: data, FuncMap: funcs},
			},
		},
	}
}
