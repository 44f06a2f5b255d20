package dsl

import (
	"goa.design/goa/v3/eval"

	"github.com/quiver-go/quiver/expr"
)

// OpenArgs declares that the tool's payload accepts properties its Args do
// not declare: the generated root payload schema says
// "additionalProperties": true.
//
// Without it every payload schema is closed: the root object and every
// object inside Args, user types included, say "additionalProperties":
// false (a MapOf keeps its own), so a call carrying a property the design
// never declared — "ORDER_ID" for "order_id", a look-alike of an injected
// field — fails validation and the model is told to remove it. OpenArgs
// opens the root only: objects nested in Args stay closed (declare a MapOf
// attribute where free-form keys belong). Result and server data schemas
// are never closed.
//
// The typed payload decodes the declared fields only; an executor reads
// the others from the call's raw payload. Injected fields are still filled
// by the runtime. OpenArgs takes object Args (or none); it is refused on a
// map, a primitive, an array or a union, and on a tool bound with BindTo,
// whose adapter passes only the declared fields to the method.
func OpenArgs() {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("OpenArgs: must be used in a Tool")
		return
	}
	if tool.OpenArgs {
		eval.ReportError("OpenArgs: declared twice in the tool (first at %s): call it once", tool.OpenArgsAt)
		return
	}
	tool.OpenArgs, tool.OpenArgsAt = true, expr.DesignLocation()
}
