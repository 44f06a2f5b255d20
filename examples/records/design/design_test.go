package design_test

import (
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/dsl/dsltest"
	"github.com/quiver-go/quiver/examples/records/design"
	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/tools"
)

// initErr is the outcome of evaluating the declarations the package made
// at initialization, as goa gen does; TestMain records it before any test
// resets the engine.
var initErr error

func TestMain(m *testing.M) {
	if eval.Context.Errors != nil {
		initErr = eval.Context.Errors
	} else {
		initErr = eval.RunDSL()
	}
	os.Exit(m.Run())
}

// TestInitDeclarationsEvaluate checks the path goa gen takes: the
// declarations made by the package's initialization evaluate.
func TestInitDeclarationsEvaluate(t *testing.T) {
	if initErr != nil {
		t.Fatalf("the declarations made at initialization do not evaluate: %v", initErr)
	}
	if n := len(expr.Root.Toolsets); n != 1 {
		t.Fatalf("%d toolsets after initialization, want 1", n)
	}
}

// evaluated is the evaluated design: the workspace toolset and the
// assistant's use of it. Every set the tests check is derived from it.
type evaluated struct {
	root      *expr.RootExpr
	toolset   *expr.ToolsetExpr
	agent     *expr.AgentExpr
	use       *expr.UseExpr
	deferred  []string
	inline    []string
	confirmed []string
}

func evaluate(t *testing.T) evaluated {
	t.Helper()
	root, err := dsltest.Run(design.Design)
	if err != nil {
		t.Fatalf("the design does not evaluate: %v", err)
	}
	if len(root.Toolsets) != 1 || root.Toolsets[0].Name != "workspace" {
		t.Fatalf("want one toolset \"workspace\", got %d", len(root.Toolsets))
	}
	if len(root.Agents) != 1 || root.Agents[0].Name != "assistant" || root.Agents[0].Service.Name != "workspace" {
		t.Fatalf("want one agent \"assistant\" in service \"workspace\", got %d agents", len(root.Agents))
	}
	e := evaluated{root: root, toolset: root.Toolsets[0], agent: root.Agents[0]}
	if len(e.agent.Uses) != 1 || e.agent.Uses[0].Consumed() != e.toolset {
		t.Fatalf("want the assistant to use the workspace toolset once")
	}
	e.use = e.agent.Uses[0]
	e.deferred = e.use.DeferredTools()
	for _, tool := range e.toolset.Tools {
		if !slices.Contains(e.deferred, tool.Name) {
			e.inline = append(e.inline, tool.Name)
		}
		if tool.Confirmation != nil {
			e.confirmed = append(e.confirmed, tool.Name)
		}
	}
	return e
}

func TestDesignEvaluates(t *testing.T) {
	e := evaluate(t)
	if e.agent.Description == "" {
		t.Error("the assistant has no system description")
	}
	if n := len(e.toolset.Tools); n < 36 || n > 40 {
		t.Errorf("%d tools, want 38±2", n)
	}
	t.Logf("%d tools: %d inline, %d deferred, %d behind a confirmation", len(e.toolset.Tools), len(e.inline), len(e.deferred), len(e.confirmed))
}

func TestElevenDeferredTwentySevenInline(t *testing.T) {
	e := evaluate(t)
	if len(e.deferred) != 11 || len(e.inline) != 27 {
		t.Fatalf("%d deferred %v, %d inline %v: want 11 and 27", len(e.deferred), e.deferred, len(e.inline), e.inline)
	}
	for _, name := range e.deferred {
		if tool := e.toolset.Tool(name); tool == nil || len(tool.Keywords) == 0 {
			t.Errorf("deferred tool %q has no Keywords: the model finds it by search only", name)
		}
	}
}

func TestEveryToolIsDeclaredCompletely(t *testing.T) {
	e := evaluate(t)
	for _, tool := range e.toolset.Tools {
		if strings.TrimSpace(tool.Description) == "" {
			t.Errorf("%s: no description", tool.Name)
		}
		if tool.Exposure == "" {
			t.Errorf("%s: no Exposure", tool.Name)
		}
		if tool.Args == nil || tool.Return == nil {
			t.Errorf("%s: want Args and Return", tool.Name)
		}
		silent, gated := slices.Contains(tool.Tags, "silent"), slices.Contains(tool.Tags, "gated")
		switch {
		case silent == gated:
			t.Errorf("%s: tags %v: want exactly one of \"silent\" and \"gated\"", tool.Name, tool.Tags)
		case gated != (tool.Confirmation != nil):
			t.Errorf("%s: tagged gated=%v but Confirmation=%v: gated tools, and only they, run behind a confirmation", tool.Name, gated, tool.Confirmation != nil)
		}
	}
}

// TestExposureTiers checks that the MCP tiers agree with the run tiers:
// read-only tools run silently, staging tools stage their writes and are
// gated, and nothing gated is read-only.
func TestExposureTiers(t *testing.T) {
	e := evaluate(t)
	tiers := map[tools.Exposure][]string{}
	for _, tool := range e.toolset.Tools {
		tiers[tool.Exposure] = append(tiers[tool.Exposure], tool.Name)
		gated := tool.Confirmation != nil
		switch tool.Exposure {
		case tools.ExposureReadOnly:
			if gated {
				t.Errorf("%s: read-only but gated", tool.Name)
			}
		case tools.ExposureStaging:
			if !gated || !slices.Contains(tool.Tags, "staged") {
				t.Errorf("%s: staging tier: want a gated tool tagged \"staged\"", tool.Name)
			}
		case tools.ExposureFull, tools.ExposureExcluded:
		default:
			t.Errorf("%s: unknown exposure %q", tool.Name, tool.Exposure)
		}
	}
	for _, tier := range []tools.Exposure{tools.ExposureReadOnly, tools.ExposureStaging, tools.ExposureFull, tools.ExposureExcluded} {
		if len(tiers[tier]) == 0 {
			t.Errorf("no tool in tier %q", tier)
		}
		t.Logf("%-9s %2d %v", tier, len(tiers[tier]), tiers[tier])
	}
}

// TestProposalPairs checks the five x / proposeX pairs: proposeX returns a
// proposal and runs silently; x acts at once behind a Confirmation.
func TestProposalPairs(t *testing.T) {
	e := evaluate(t)
	var pairs []string
	for _, p := range e.toolset.Tools {
		rest, ok := strings.CutPrefix(p.Name, "propose")
		if !ok || rest == "" {
			continue
		}
		name := string(unicode.ToLower(rune(rest[0]))) + rest[1:]
		x := e.toolset.Tool(name)
		if x == nil {
			t.Errorf("%s proposes %q, which is not a tool", p.Name, name)
			continue
		}
		pairs = append(pairs, name)
		if p.Confirmation != nil {
			t.Errorf("%s: a proposal changes nothing and needs no confirmation", p.Name)
		}
		if p.Return == nil || p.Return.Find("proposalId") == nil || !p.Return.IsRequired("proposalId") {
			t.Errorf("%s: want a proposal result with a required proposalId", p.Name)
		}
		if c := x.Confirmation; c == nil || c.PromptTemplate == nil || c.DeniedResultTemplate == nil {
			t.Errorf("%s: the immediate half of a pair needs a Confirmation with a PromptTemplate and a DeniedResultTemplate", name)
		}
		if !slices.Contains(x.Tags, "immediate") || !slices.Contains(p.Tags, "proposal") {
			t.Errorf("%s / %s: want tags \"immediate\" and \"proposal\"", name, p.Name)
		}
	}
	if len(pairs) != 5 {
		t.Fatalf("%d pairs %v, want 5", len(pairs), pairs)
	}
}

// TestConfirmationTemplatesRender renders every confirmation template with
// a payload holding only the required Args, as the runtime does
// (missingkey=error): a template may name only fields the model must send,
// by their JSON names, and the denied result must be JSON.
func TestConfirmationTemplatesRender(t *testing.T) {
	e := evaluate(t)
	for _, name := range e.confirmed {
		tool := e.toolset.Tool(name)
		payload := map[string]any{}
		if obj := goaexpr.AsObject(tool.Args.Type); obj != nil {
			for _, nat := range *obj {
				if tool.Args.IsRequired(nat.Name) {
					payload[nat.Name] = sample(nat.Attribute.Type)
				}
			}
		}
		c := tool.Confirmation
		if c.PromptTemplate == nil || c.DeniedResultTemplate == nil {
			t.Errorf("%s: want a PromptTemplate and a DeniedResultTemplate", name)
			continue
		}
		prompt := render(t, name, c.PromptTemplate, payload)
		if !strings.HasSuffix(prompt, "?") {
			t.Errorf("%s: the prompt %q is not a question", name, prompt)
		}
		if denied := render(t, name, c.DeniedResultTemplate, payload); !json.Valid([]byte(denied)) {
			t.Errorf("%s: the denied result %q is not JSON", name, denied)
		}
	}
}

func render(t *testing.T, name string, tpl *expr.TemplateExpr, payload map[string]any) string {
	t.Helper()
	parsed, err := tools.ParseTemplate(tpl.Func, tpl.Text)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return ""
	}
	var b bytes.Buffer
	if err := parsed.Execute(&b, payload); err != nil {
		t.Errorf("%s: %s does not render with the required Args only: %v", name, tpl.Func, err)
	}
	return b.String()
}

// sample returns a JSON-decoded value of type dt.
func sample(dt goaexpr.DataType) any {
	switch {
	case goaexpr.IsArray(dt):
		return []any{sample(goaexpr.AsArray(dt).ElemType.Type)}
	case goaexpr.IsObject(dt), goaexpr.IsMap(dt):
		return map[string]any{"column": "status"}
	}
	switch dt.Kind() {
	case goaexpr.StringKind:
		return "sales.orders"
	case goaexpr.BooleanKind:
		return true
	case goaexpr.IntKind, goaexpr.Int32Kind, goaexpr.Int64Kind, goaexpr.UIntKind, goaexpr.Float32Kind, goaexpr.Float64Kind:
		return 3.0
	}
	return nil
}

func TestRunPolicy(t *testing.T) {
	p := evaluate(t).agent.RunPolicy
	switch {
	case p == nil:
		t.Fatal("the assistant has no RunPolicy")
	case p.MaxToolCalls == nil || *p.MaxToolCalls == 0:
		t.Error("no MaxToolCalls cap")
	case p.MaxRecoveryTurns == nil:
		t.Error("no MaxRecoveryTurns")
	case p.TimeBudget == 0 && (p.Timing == nil || p.Timing.Budget == 0):
		t.Error("no time budget")
	case !p.InterruptsAllowed:
		t.Error("interrupts are not allowed: OnMissingFields cannot await clarification")
	case p.OnMissingFields != "await_clarification":
		t.Errorf("OnMissingFields %q", p.OnMissingFields)
	}
}

// TestDeclarationsImportOnlyTheDSLs reads the design files as text and
// fails on any import but Goa's DSL and Quiver's: the declarations are
// shared, and a runtime import would travel with them (seed 004). The
// code generator needs no import of its own: package dsl imports it, so
// goa gen generates Quiver's files from these imports alone.
func TestDeclarationsImportOnlyTheDSLs(t *testing.T) {
	allowed := []string{"goa.design/goa/v3/dsl", "github.com/quiver-go/quiver/dsl"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(allowed, path) {
				t.Errorf("%s imports %q: design files import only %v (package dsl enables the code generator itself)", f, path, allowed)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no design file found")
	}
}
