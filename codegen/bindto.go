package codegen

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/quiver-go/quiver/expr"
	goacodegen "goa.design/goa/v3/codegen"
	"goa.design/goa/v3/codegen/service"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"
)

// The BindTo adapters of a toolset live in the sub-package "adapters" of
// the toolset package (gen/toolsets/<toolset>/adapters): the toolset
// package holds the declarations (types, codecs, specs, Decode) and must
// not import the runtime or the Goa service packages, while the adapters
// import both. The package exports New<Toolset>Executor, taking one
// argument per Goa service the tools are bound to (in order of first
// binding) and, when some tools of the toolset are not bound, the executor
// running those.

// adapterData is what the adapters template of one toolset renders.
type adapterData struct {
	// Toolset is the toolset package.
	Toolset *toolsetData
	// Func is the constructor's name, New<Toolset>Executor.
	Func string
	// Import is the adapters package's import path.
	Import string
	// Services are the bound Goa services, in order of first binding.
	Services []*adapterService
	// Tools are the bound tools, in declaration order.
	Tools []*adapterTool
	// Unbound are the tools without BindTo, run by the fallback executor.
	Unbound []*toolData
	// Helpers are the conversion functions of Goa's transform the tools'
	// conversions call, without duplicates.
	Helpers []*goacodegen.TransformFunctionData
	// types declares the Go types of the projected server data (in the
	// package's name scope); Types are its declarations.
	types *typeGen
}

// Types returns the Go types of the projected server data.
func (a *adapterData) Types() []typeDef { return a.types.defs }

// Args returns the constructor's arguments as the quickstart writes them:
// the service parameters, then nil for the unbound tools' executor.
func (a *adapterData) Args() string {
	var args []string
	for _, s := range a.Services {
		args = append(args, s.Param)
	}
	if len(a.Unbound) > 0 {
		args = append(args, "nil")
	}
	return strings.Join(args, ", ")
}

// HasServerData reports whether a bound tool projects server data.
func (a *adapterData) HasServerData() bool {
	for _, t := range a.Tools {
		if len(t.ServerData) > 0 {
			return true
		}
	}
	return false
}

// adapterService is one Goa service the toolset's tools are bound to.
type adapterService struct {
	// Name is the design name of the service.
	Name string
	// Pkg is the name the adapters import the service package under.
	Pkg string
	// Import is the import path of the Goa service package.
	Import string
	// Param is the constructor parameter (and executor field) name.
	Param string
}

// adapterTool is one bound tool: the Go code converting between the tool's
// types and the bound method's.
type adapterTool struct {
	// Tool is the tool of the toolset package.
	Tool *toolData
	// Handler is the executor method running the tool.
	Handler string
	// Service is the bound service.
	Service *adapterService
	// Method is the Go name of the method in the Service interface.
	Method string
	// MethodPayload is the method payload type ("orders.SearchPayload"),
	// "" when the method takes none.
	MethodPayload string
	// PayloadCode declares mp (method payload) converted from p (tool
	// payload).
	PayloadCode string
	// MethodResult is true when the method returns a result (mr).
	MethodResult bool
	// ToolResult is true when the tool declares Return.
	ToolResult bool
	// ResultCode declares r (tool result) converted from mr.
	ResultCode string
	// ServerData are the projections of the method result.
	ServerData []*adapterServerData
	// Passthrough is true for a tool forwarded by Passthrough.
	Passthrough bool
}

// adapterServerData projects one field of the method result as server data.
type adapterServerData struct {
	// Kind and Audience are the declaration's.
	Kind, Audience string
	// Field is the Go field of the method result ("mr.Evidence").
	Field string
	// Nillable is true when the field may be nil (then it is left out).
	Nillable bool
	// Code, when set, declares sd converted from Field.
	Code string
	// Value is the projected value: Field, or sd.
	Value string
}

// adapterFile returns the adapters file of a toolset whose tools use
// BindTo, or nil when none does. It names the service packages with Goa's
// own service data (service.NewServicesData), so the names match what goa
// gen writes. A tool whose types it cannot convert is an error naming the
// tool and the field.
func adapterFile(genpkg string, roots []eval.Root, data *toolsetData) (*goacodegen.File, error) {
	var goaRoot *goaexpr.RootExpr
	for _, r := range roots {
		if r, ok := r.(*goaexpr.RootExpr); ok {
			goaRoot = r
		}
	}
	passthroughs := map[string]*expr.PassthroughExpr{}
	for _, r := range roots {
		if r, ok := r.(*expr.RootExpr); ok {
			if e := r.ExportDeclaring(data.Expr); e != nil {
				for _, p := range e.Passthroughs {
					passthroughs[p.Tool.Name] = p
				}
			}
		}
	}
	bound := len(passthroughs) > 0
	for _, t := range data.Tools {
		bound = bound || t.Expr.BoundMethod() != nil
	}
	if !bound {
		return nil, nil
	}
	if goaRoot == nil {
		return nil, fmt.Errorf("quiver codegen: toolset %q binds tools to methods but the design has no Goa root", data.Expr.Name)
	}
	services := service.NewServicesData(goaRoot)
	ad := &adapterData{Toolset: data, Func: "New" + goacodegen.Goify(data.Expr.Name, true) + "Executor"}
	scope := goacodegen.NewNameScope()
	for _, n := range []string{data.Package, ad.Func, "executor", "failure", "addServerData", "context", "json", "fmt", "planner", "runtime", "toolcall", "tools", "unbound", "e", "ctx", "call", "p", "mp", "mr", "r", "sd", "out", "err"} {
		scope.Unique(n)
	}
	ad.types = &typeGen{scope: scope, done: map[string]bool{}}
	byName := map[string]*adapterService{}
	for _, td := range data.Tools {
		m := td.Expr.BoundMethod()
		how, loc := "bound to", expr.Location{}
		if m != nil {
			loc = td.Expr.Binding.Location
		}
		if p := passthroughs[td.Expr.Name]; p != nil {
			if m != nil {
				return nil, fmt.Errorf("quiver codegen: %stool %q of toolset %q both uses BindTo and forwards with Passthrough: keep one", designAt(p.Location), td.Expr.Name, data.Expr.Name)
			}
			if p.Method == nil {
				return nil, fmt.Errorf("quiver codegen: %stool %q of toolset %q: Passthrough names no method of the design", designAt(p.Location), td.Expr.Name, data.Expr.Name)
			}
			m, how, loc = p.Method, "forwarded by Passthrough to", p.Location
		}
		if m == nil {
			ad.Unbound = append(ad.Unbound, td)
			continue
		}
		sd := services.Get(m.Service.Name)
		md := sd.Method(m.Name)
		if sd == nil || md == nil {
			return nil, fmt.Errorf("quiver codegen: tool %q: Goa has no data for method %q of service %q", td.Expr.Name, m.Name, m.Service.Name)
		}
		svc := byName[sd.Name]
		if svc == nil {
			svc = &adapterService{Name: sd.Name, Import: path.Join(genpkg, sd.PathName)}
			svc.Pkg = scope.Unique(sd.PkgName, "svc")
			svc.Param = scope.Unique(sd.VarName + "Svc")
			byName[sd.Name] = svc
			ad.Services = append(ad.Services, svc)
		}
		at, err := buildAdapterTool(ad, td, svc, m, md, sd)
		if err != nil {
			return nil, fmt.Errorf("quiver codegen: %stool %q of toolset %q %s method %q of service %q: %w", designAt(loc), td.Expr.Name, data.Expr.Name, how, m.Name, m.Service.Name, err)
		}
		at.Handler = scope.Unique(lowerFirst(td.GoName))
		at.Passthrough = how != "bound to"
		ad.Tools = append(ad.Tools, at)
	}
	imports := []*goacodegen.ImportSpec{
		{Path: "context"},
		{Path: "fmt"},
		{Path: "github.com/quiver-go/quiver/toolcall"},
		{Path: "github.com/quiver-go/quiver/tools"},
		{Name: data.Package, Path: data.Import},
	}
	if ad.HasServerData() {
		imports = append(imports, &goacodegen.ImportSpec{Path: "encoding/json"})
	}
	for _, s := range ad.Services {
		imports = append(imports, &goacodegen.ImportSpec{Name: s.Pkg, Path: s.Import})
	}
	ad.Import = path.Join(data.Import, "adapters")
	data.Adapters = ad
	header := goacodegen.Header(fmt.Sprintf("Toolset %q BindTo and Passthrough adapters", data.Expr.Name), "adapters", imports)
	return &goacodegen.File{
		Path: path.Join(toolsetDir(data), "adapters", "executor.go"),
		SectionTemplates: []*goacodegen.SectionTemplate{header,
			{Name: "quiver-adapters", Source: adaptersT, Data: ad, FuncMap: funcs}},
	}, nil
}

// buildAdapterTool computes the conversions of one bound tool, refusing
// the methods and shapes it cannot call or convert. The conversions are
// Goa's GoTransform code (see convert); the helper functions they call and
// the server data types they build are added to ad.
func buildAdapterTool(ad *adapterData, td *toolData, svc *adapterService, m *goaexpr.MethodExpr, md *service.MethodData, sd *service.Data) (*adapterTool, error) {
	if m.IsStreaming() {
		return nil, fmt.Errorf("streaming methods cannot back a tool")
	}
	if md.SkipRequestBodyEncodeDecode || md.SkipResponseBodyEncodeDecode {
		return nil, fmt.Errorf("methods that skip body encoding cannot back a tool")
	}
	if md.ViewedResult != nil && md.ViewedResult.ViewName == "" {
		return nil, fmt.Errorf("the method result has several views: pick one with Result(T, func() { View(\"name\") })")
	}
	t := td.Expr
	ts := ad.Toolset
	at := &adapterTool{Tool: td, Service: svc, Method: md.VarName, ToolResult: t.Return != nil}
	toolArgs := objectOf(t.Args)
	if md.Payload == "" && toolArgs != nil && len(*goaexpr.AsObject(toolArgs.Type)) > 0 {
		return nil, fmt.Errorf("the tool declares Args but the method takes no payload: the arguments would be dropped")
	}
	if md.Payload != "" {
		if objectOf(m.Payload) == nil || md.PayloadLoc != nil {
			return nil, fmt.Errorf("the method payload must be an object type of the service package")
		}
		if toolArgs == nil {
			return nil, fmt.Errorf("the method takes a payload: declare the tool's Args")
		}
		at.MethodPayload = svc.Pkg + "." + md.Payload
		code, helpers, err := convert(
			toolSide(t.Args, "Args", ts.Package, ts.typeScope),
			serviceSide(m.Payload, "the method payload", svc.Pkg, sd.Scope),
			"p", "mp", "", true, true)
		if err != nil {
			return nil, err
		}
		at.PayloadCode = code
		ad.Helpers = goacodegen.AppendHelpers(ad.Helpers, helpers)
	}
	if md.Result != "" {
		mr := objectOf(m.Result)
		if mr == nil || md.ResultLoc != nil {
			return nil, fmt.Errorf("the method result must be an object type of the service package")
		}
		at.MethodResult = true
		if objectOf(t.Return) != nil {
			code, helpers, err := convert(
				serviceSide(m.Result, "the method result", svc.Pkg, sd.Scope),
				toolSide(namedAs(t.Return, td.Result), "Return", ts.Package, ts.typeScope),
				"mr", "r", "", false, true)
			if err != nil {
				return nil, err
			}
			at.ResultCode = code
			ad.Helpers = goacodegen.AppendHelpers(ad.Helpers, helpers)
		} else if t.Return != nil {
			return nil, errors.New("the tool's Return must be an object to be converted from the method result")
		}
		for _, s := range t.ServerData {
			if s.FromMethodResultField == "" {
				continue
			}
			asd, err := buildServerData(ad, td, s, mr, svc, sd)
			if err != nil {
				return nil, fmt.Errorf("server data %q: %w", s.Kind, err)
			}
			at.ServerData = append(at.ServerData, asd)
		}
	} else if t.Return != nil {
		return nil, fmt.Errorf("the tool declares Return but the method has no result")
	}
	for _, s := range t.ServerData {
		if s.FromMethodResultField != "" && !at.MethodResult {
			return nil, fmt.Errorf("server data %q projects a field of a method without result", s.Kind)
		}
	}
	return at, nil
}

// buildServerData computes the projection of one method result field as
// server data. A primitive, or an array or map of primitives, is encoded as
// the method returns it. Any other field is converted with Goa's transform
// into a Go type of the adapters package declared from the server data
// schema, whose JSON field names are the design's (Goa service types carry
// no JSON tags): the schema is the contract, the field must convert to it.
func buildServerData(ad *adapterData, td *toolData, s *expr.ServerDataExpr, mr *goaexpr.AttributeExpr, svc *adapterService, sd *service.Data) (*adapterServerData, error) {
	name := s.FromMethodResultField
	f := mr.Find(name)
	if f == nil {
		return nil, fmt.Errorf("the method result has no field %q", name)
	}
	field := "mr." + goacodegen.GoifyAtt(f, name, true)
	asd := &adapterServerData{
		Kind:     s.Kind,
		Audience: audienceLit(s.Audience),
		Value:    field,
		Nillable: mr.IsPrimitivePointer(name, true) || !goaexpr.IsPrimitive(f.Type) || f.Type == goaexpr.Bytes || f.Type == goaexpr.Any,
		Field:    field,
	}
	schema := s.Schema
	if schema == nil || schema.Type == goaexpr.Empty {
		if !plainType(f.Type) {
			return nil, fmt.Errorf("field %q of the method result is %s: declare the server data schema to project it", name, typeLabel(f.Type))
		}
		return asd, nil
	}
	src := serviceSide(f, "the method result", svc.Pkg, sd.Scope)
	if plainType(f.Type) && plainType(schema.Type) {
		c := &convChecker{src: src, tgt: toolSide(schema, "the server data schema", "", ad.types.scope), seen: map[string]bool{}}
		return asd, c.check(name, f, schema)
	}
	tgt := schema
	if goaexpr.IsObject(schema.Type) {
		goName := ad.types.unique(td.GoName + goacodegen.Goify(s.Kind, true) + "ServerData")
		ad.types.declare(goName, fmt.Sprintf("%s is the server data %q of tool %s.", goName, s.Kind, td.Expr.Ident()), schema)
		tgt = namedAs(schema, goName)
	} else {
		ad.types.declareNested(schema)
	}
	code, helpers, err := convert(src, toolSide(tgt, "the server data schema", "", ad.types.scope), field, "sd", name, false, true)
	if err != nil {
		return nil, err
	}
	ad.Helpers = goacodegen.AppendHelpers(ad.Helpers, helpers)
	asd.Code, asd.Value = code, "sd"
	return asd, nil
}

// designAt returns "[file:line] " for a known design location, else "".
func designAt(l expr.Location) string {
	if l.File == "" {
		return ""
	}
	return "[" + l.String() + "] "
}

// objectOf returns the object attribute of att (through a user type), or
// nil when att is nil or not an object.
func objectOf(att *goaexpr.AttributeExpr) *goaexpr.AttributeExpr {
	if att == nil || att.Type == goaexpr.Empty {
		return nil
	}
	if ut, ok := att.Type.(goaexpr.UserType); ok {
		att = ut.Attribute()
	}
	if goaexpr.AsObject(att.Type) == nil {
		return nil
	}
	return att
}
