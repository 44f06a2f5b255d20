package expr

import (
	"fmt"
	"strings"
	"unicode"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/tools"
)

// ToolExpr is one tool of a toolset.
type ToolExpr struct {
	eval.DSLFunc
	// Toolset is the toolset that declares the tool.
	Toolset *ToolsetExpr
	// Name is the tool's local name (no dots).
	Name string
	// Title is the human title; Finalize humanizes the name when empty.
	Title string
	// Description says what the tool does.
	Description string
	// Args is the payload the model sends; nil means no arguments.
	Args *goaexpr.AttributeExpr
	// Return is the result the model reads; nil means none.
	Return *goaexpr.AttributeExpr
	// Tags are the tool's own tags (the toolset's are inherited).
	Tags []string
	// Keywords are search terms a user would say that the description
	// lacks (seed 004).
	Keywords []string
	// Exposure is the tool's MCP scope tier.
	Exposure tools.Exposure
	// TerminalRun ends the run on success; it implies Bookkeeping.
	TerminalRun bool
	// Bookkeeping exempts the tool's calls from the tool-call budget.
	Bookkeeping bool
	// OpenArgs makes the payload's root schema accept properties Args
	// does not declare ("additionalProperties": true); payload schemas
	// are closed otherwise. See OpenArgsAt.
	OpenArgs bool
	// OpenArgsAt is where OpenArgs was called in the design, for errors.
	OpenArgsAt Location
	// Meta holds Goa Meta annotations.
	Meta goaexpr.MetaExpr
	// ServerData are the tool's server-only outputs, in declaration order.
	ServerData []*ServerDataExpr
	// Bounds is the BoundedResult contract, or nil.
	Bounds *BoundsExpr
	// Binding is the BindTo binding to a Goa service method, or nil.
	Binding *BindingExpr
	// Inject names the payload fields the runtime fills, in declaration
	// order (see InjectedFields and RequiredLabels).
	Inject []string
	// CallHintTemplate renders a call's display hint, or nil.
	CallHintTemplate *TemplateExpr
	// ResultHintTemplate renders a result's display hint, or nil.
	ResultHintTemplate *TemplateExpr
	// ResultReminder is a static system reminder queued after each result.
	ResultReminder string
	// Confirmation requires approval before the tool runs, or nil.
	Confirmation *ConfirmationExpr
}

// EvalName implements eval.Expression.
func (t *ToolExpr) EvalName() string {
	if t.Toolset == nil {
		return fmt.Sprintf("tool %q", t.Name)
	}
	return fmt.Sprintf("tool %q of toolset %q", t.Name, t.Toolset.Name)
}

// SetDescription lets Goa's Description set the tool description.
func (t *ToolExpr) SetDescription(d string) { t.Description = d }

// SetTitle lets Goa's Title set the tool title.
func (t *ToolExpr) SetTitle(s string) { t.Title = s }

// AddMeta lets Goa's Meta annotate the tool.
func (t *ToolExpr) AddMeta(name string, vals ...string) {
	if t.Meta == nil {
		t.Meta = goaexpr.MetaExpr{}
	}
	t.Meta[name] = append(t.Meta[name], vals...)
}

// Ident returns the tool's ident, "<toolset>.<tool>".
func (t *ToolExpr) Ident() tools.Ident { return tools.JoinIdent(t.Toolset.Name, t.Name) }

// Validate reports an invalid tool name or an empty description.
func (t *ToolExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	if t.Toolset != nil {
		if _, err := tools.NewIdent(t.Toolset.Name, t.Name); err != nil {
			verr.Add(t, "Tool: invalid name %q: tool names are letters, digits, _ and - without dots", t.Name)
		}
	}
	if strings.TrimSpace(t.Description) == "" {
		verr.Add(t, "Tool: %q has no description: the model chooses tools by their descriptions", t.Name)
	}
	t.validateFeatures(verr)
	return result(verr)
}

// Finalize fills the title from the name and makes terminal tools
// bookkeeping.
func (t *ToolExpr) Finalize() {
	if t.Title == "" {
		t.Title = Humanize(t.Name)
	}
	if t.TerminalRun {
		t.Bookkeeping = true
	}
}

// Humanize turns a tool name into a title: "startExport" and
// "start_export" both become "Start export".
func Humanize(name string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(runes[i-1]) || (i+1 < len(runes) && unicode.IsLower(runes[i+1]) && unicode.IsUpper(runes[i-1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	if len(words) == 0 {
		return name
	}
	first := []rune(words[0])
	first[0] = unicode.ToUpper(first[0])
	words[0] = string(first)
	return strings.Join(words, " ")
}
