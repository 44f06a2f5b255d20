// Package dsltest evaluates Quiver designs in tests, as goa gen would.
//
// Goa's own test helper (codegen.RunDSL) resets the engine and registers
// only Goa's roots; Run registers Quiver's root again and returns
// evaluation errors instead of failing the test, so tests can assert error
// texts.
package dsltest

import (
	"errors"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
)

// Run evaluates design — a function making the design's top-level
// declarations (Toolset, Service, …) — and returns Quiver's root, or the
// evaluation's error.
func Run(design func()) (*expr.RootExpr, error) {
	eval.Reset()
	goaexpr.Root = new(goaexpr.RootExpr)
	goaexpr.GeneratedResultTypes = new(goaexpr.ResultTypesRoot)
	expr.Reset()
	for _, r := range []eval.Root{goaexpr.Root, goaexpr.GeneratedResultTypes, expr.Root} {
		if err := eval.Register(r); err != nil {
			return nil, err
		}
	}
	goaexpr.Root.API = goaexpr.NewAPIExpr("test api", func() {})
	goaexpr.Root.API.Servers = []*goaexpr.ServerExpr{goaexpr.Root.API.DefaultServer()}
	if !eval.Execute(design, nil) {
		return nil, errors.New(eval.Context.Error())
	}
	if err := eval.RunDSL(); err != nil {
		return nil, err
	}
	return expr.Root, nil
}
