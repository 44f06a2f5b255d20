package expr

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"
)

// AgentToolsetExpr is a reference to a toolset another agent exports,
// given to Use for agent-as-tool composition. It is resolved after
// evaluation: Prepare sets Export and the use's Toolset to the exported
// toolset.
type AgentToolsetExpr struct {
	// ServiceName, AgentName and ToolsetName name the exporting service,
	// the exporting agent and its exported toolset.
	ServiceName, AgentName, ToolsetName string
	// Use is the consuming use.
	Use *UseExpr
	// Export is the referenced export, resolved after evaluation.
	Export *ExportExpr
	// Location is where AgentToolset is called in the design.
	Location Location
}

// EvalName implements eval.Expression.
func (r *AgentToolsetExpr) EvalName() string {
	return fmt.Sprintf("AgentToolset(%q, %q, %q)", r.ServiceName, r.AgentName, r.ToolsetName)
}

// Prepare resolves the reference, so the use's subset and Deferred
// selections are checked against the exported tools.
func (r *AgentToolsetExpr) Prepare() {
	for _, a := range Root.Agents {
		if a.Service != nil && a.Service.Name == r.ServiceName && a.Name == r.AgentName {
			r.Export = a.Export(r.ToolsetName)
			break
		}
	}
	if r.Export != nil && r.Use != nil {
		r.Use.Toolset = r.Export.Exported()
	}
}

// Validate reports a reference to a service, an agent or an export the
// design lacks, an agent using its own export, and an export that agents
// also use directly (one toolset name would be two toolsets).
func (r *AgentToolsetExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	at := r.Location.Of(r)
	if r.Export != nil {
		if r.Use != nil && r.Use.Agent == r.Export.Agent {
			verr.Add(at, "AgentToolset: agent %q uses a toolset it exports itself: declare the tools with Use(%q, func() { ... }) instead", r.AgentName, r.ToolsetName)
		}
		if direct := directUser(r.Export); direct != nil && !r.Export.PassthroughOnly() {
			verr.Add(at, "AgentToolset: toolset %q, which this use runs as agent %q's tool, is also used directly by agent %q: on a runtime a toolset name is one toolset, so its calls would run either its executor or the agent; export a toolset of its own (Export(\"name\", func() { ... }))", r.ToolsetName, r.AgentName, direct.Agent.Name)
		}
		return result(verr)
	}
	if goaexpr.Root.Service(r.ServiceName) == nil {
		verr.Add(at, "AgentToolset: no service %q in the design", r.ServiceName)
		return result(verr)
	}
	var agent *AgentExpr
	var agents []string
	for _, a := range Root.Agents {
		if a.Service != nil && a.Service.Name == r.ServiceName {
			agents = append(agents, a.Name)
			if a.Name == r.AgentName {
				agent = a
			}
		}
	}
	if agent == nil {
		verr.Add(at, "AgentToolset: service %q declares no agent %q (its agents: %s)", r.ServiceName, r.AgentName, list(agents))
		return result(verr)
	}
	var exports []string
	for _, e := range agent.Exports() {
		exports = append(exports, e.Name())
	}
	verr.Add(at, "AgentToolset: agent %q of service %q exports no toolset %q (its exports: %s)", r.AgentName, r.ServiceName, r.ToolsetName, list(exports))
	return result(verr)
}

// list joins names for an error message.
func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Location is a place in the design: a file, relative to the working
// directory when possible, and a line.
type Location struct {
	// File is the design file.
	File string
	// Line is the line in File.
	Line int
}

// String returns "file:line".
func (l Location) String() string { return fmt.Sprintf("%s:%d", l.File, l.Line) }

// DesignLocation returns where in the design the DSL call being evaluated
// was made: the first caller outside Goa and Quiver's dsl and expr packages
// (test files count as design files), as Goa locates DSL errors. It is the
// zero Location when no such caller is found.
func DesignLocation() Location {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if f.File != "" && f.Line != 0 && !skipFrame(f) {
			file := f.File
			if wd, err := os.Getwd(); err == nil {
				if rel, err := filepath.Rel(wd, file); err == nil {
					file = rel
				}
			}
			return Location{File: file, Line: f.Line}
		}
		if !more {
			return Location{}
		}
	}
}

// skipFrame reports whether f belongs to the DSL machinery rather than the
// design.
func skipFrame(f runtime.Frame) bool {
	if strings.HasSuffix(f.File, "_test.go") {
		return false
	}
	for _, pkg := range Root.Packages() {
		if strings.HasPrefix(f.Function, pkg+".") || strings.HasPrefix(f.Function, pkg+"/") {
			return true
		}
	}
	return strings.HasPrefix(f.Function, "goa.design/goa/v3/") || strings.Contains(filepath.ToSlash(f.File), "/goa.design/goa/v3@")
}

// Of returns the expression to report a validation error of e on: e itself
// when it has a DSL function (Goa then prefixes the error with that
// function's location), else e under a name prefixed with l, in Goa's
// "[file:line] name" form.
func (l Location) Of(e eval.Expression) eval.Expression {
	if s, ok := e.(eval.Source); ok && s.DSL() != nil {
		return e
	}
	if l.File == "" {
		return e
	}
	return located{name: fmt.Sprintf("[%s] %s", l, e.EvalName())}
}

// located is an expression name carrying a design location.
type located struct{ name string }

// EvalName implements eval.Expression.
func (l located) EvalName() string { return l.name }

// directUser returns a use of e's exported toolset by an agent that is not
// an AgentToolset reference (the toolset used as a plain toolset), or nil.
func directUser(e *ExportExpr) *UseExpr {
	ts := e.Exported()
	if ts == nil {
		return nil
	}
	for _, a := range Root.Agents {
		for _, u := range a.Uses {
			if u.AgentToolset == nil && u.Toolset == ts {
				return u
			}
		}
	}
	return nil
}
