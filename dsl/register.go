package dsl

import (
	"goa.design/goa/v3/eval"

	"github.com/quiver-go/quiver/expr"
)

// Register the design root with Goa's engine, as Goa's own DSL does: this
// is the package's only initialization side effect. (Its import of the
// code generator, plugin.go, registers the generator with goa gen in
// codegen's own init.)
func init() {
	if err := eval.Register(expr.Root); err != nil {
		panic(err) // a second registration of the same root is a build bug
	}
}
