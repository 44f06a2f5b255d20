package codegen

import (
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
)

// ToolData exposes toolData to the external tests, which evaluate designs
// with package dsl: dsl imports this package (to enable the plugin), so an
// internal test cannot import dsl.
type ToolData = toolData

// BuildToolset exposes buildToolset to the external tests.
func BuildToolset(api *goaexpr.APIExpr, ts *expr.ToolsetExpr) ([]*ToolData, error) {
	data, err := buildToolset(api, ts, nil, false)
	if err != nil {
		return nil, err
	}
	return data.Tools, nil
}
