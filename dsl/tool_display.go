package dsl

import (
	"strings"

	"goa.design/goa/v3/eval"

	"github.com/quiver-go/quiver/expr"
)

// reminderTag is the tag the runtime wraps result reminders in.
const reminderTag = "system-reminder"

// CallHintTemplate sets the Go text/template rendering a short display
// hint for a call of the tool, over the typed payload with Go field names:
// "Searching for: {{ .Query }}". It is parsed when the design is validated,
// with the functions the runtime provides (json, quote, join, count,
// truncate) and missingkey=error.
func CallHintTemplate(text string) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("CallHintTemplate: must be used in a Tool")
		return
	}
	setTemplate("CallHintTemplate", &tool.CallHintTemplate, text, "the tool")
}

// ResultHintTemplate sets the Go text/template rendering a short display
// hint for a result of the tool, over {{ .Result }} (the typed result, Go
// field names) and {{ .Bounds }} (the reported bounds of a BoundedResult):
// "Found {{ count .Result.Documents }} documents". It is parsed when the
// design is validated, like CallHintTemplate.
func ResultHintTemplate(text string) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("ResultHintTemplate: must be used in a Tool")
		return
	}
	setTemplate("ResultHintTemplate", &tool.ResultHintTemplate, text, "the tool")
}

// ResultReminder sets a static system reminder the runtime adds to the
// conversation after each result of the tool, telling the model how the
// result is presented ("The user sees a rendered graph of this data."). The
// runtime wraps it in <system-reminder> tags: leave them out.
func ResultReminder(text string) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("ResultReminder: must be used in a Tool")
		return
	}
	switch {
	case strings.TrimSpace(text) == "":
		eval.ReportError("ResultReminder: the reminder is empty")
	case strings.Contains(text, "<"+reminderTag) || strings.Contains(text, "</"+reminderTag):
		eval.ReportError("ResultReminder: leave out the <%s> tags: the runtime adds them", reminderTag)
	case tool.ResultReminder != "":
		eval.ReportError("ResultReminder: declared twice in the tool: write one reminder")
	default:
		tool.ResultReminder = text
	}
}

// Confirmation requires explicit out-of-band approval before each call of
// the tool runs. Its DSL function sets Goa's Title, PromptTemplate (the
// question shown to the approver) and DeniedResultTemplate (the JSON result
// the model receives on a denial); both templates render over the payload's
// JSON keys ({{ .key }}, {{ json .value }}) and are parsed when the design
// is validated. Without them the runtime asks with the tool's title and
// arguments and answers a denial with its default result.
func Confirmation(fn ...func()) {
	tool, ok := eval.Current().(*expr.ToolExpr)
	if !ok {
		eval.ReportError("Confirmation: must be used in a Tool")
		return
	}
	if len(fn) > 1 {
		eval.ReportError("Confirmation: takes one DSL function")
		return
	}
	if tool.Confirmation != nil {
		eval.ReportError("Confirmation: declared twice in the tool")
		return
	}
	c := &expr.ConfirmationExpr{Tool: tool}
	tool.Confirmation = c
	if len(fn) == 1 {
		c.DSLFunc = fn[0]
		eval.Execute(fn[0], c)
	}
}

// PromptTemplate sets the Go text/template of the question shown to the
// approver of a call: `Approve write: set {{ .key }} to {{ json .value }}`.
func PromptTemplate(text string) {
	c, ok := eval.Current().(*expr.ConfirmationExpr)
	if !ok {
		eval.ReportError("PromptTemplate: must be used in a Confirmation")
		return
	}
	setTemplate("PromptTemplate", &c.PromptTemplate, text, "the Confirmation")
}

// DeniedResultTemplate sets the Go text/template of the JSON tool result
// the model receives when a call is denied:
// `{"summary":"Cancelled","key":{{ json .key }}}`.
func DeniedResultTemplate(text string) {
	c, ok := eval.Current().(*expr.ConfirmationExpr)
	if !ok {
		eval.ReportError("DeniedResultTemplate: must be used in a Confirmation")
		return
	}
	setTemplate("DeniedResultTemplate", &c.DeniedResultTemplate, text, "the Confirmation")
}

// setTemplate records a template once, with where the design declared it,
// for validation to parse.
func setTemplate(fname string, dst **expr.TemplateExpr, text, in string) {
	switch {
	case strings.TrimSpace(text) == "":
		eval.ReportError("%s: the template is empty", fname)
	case *dst != nil:
		eval.ReportError("%s: declared twice in %s", fname, in)
	default:
		*dst = &expr.TemplateExpr{Func: fname, Text: text, Location: expr.DesignLocation()}
	}
}
