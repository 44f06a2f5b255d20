package runtimetest

import (
	"github.com/quiver-go/quiver/tools"
)

// hintCallTemplate sets the call hint template.
func hintCallTemplate(tmpl string) specOption {
	return func(s *tools.ToolSpec) { s.CallHintTemplate = tmpl }
}

// hintResultTemplate sets the result hint template.
func hintResultTemplate(tmpl string) specOption {
	return func(s *tools.ToolSpec) { s.ResultHintTemplate = tmpl }
}
