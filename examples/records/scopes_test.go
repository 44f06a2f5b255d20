package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/examples/records/gen/toolsets/workspace"
	"github.com/quiver-go/quiver/internal/examplecheck"
	"github.com/quiver-go/quiver/tools"
)

// TestScopesFollowTheDesign proves that the MCP tiers, the confirmation
// set and the deferred set are derived from the design's declarations,
// never kept by hand (seed 004): it edits a copy of the design — one
// tool's Exposure, a Confirmation added to one tool and removed from
// another, one name of the agent's Deferred call — runs goa gen on the
// copy, and checks with an MCP client per tier that exactly the edited
// tools moved, each in every list it belongs to.
//
// The lists are read by a program built in the copy (scopesProgram), once
// on the unmodified module and once after the edits, so that it imports
// the generated packages of each: the workspace toolset's Specs served by
// mcp.Toolsets, the agent's DeferredTools as the deferred set.
func TestScopesFollowTheDesign(t *testing.T) {
	if testing.Short() {
		t.Skip("runs goa gen and builds programs: skipped in -short mode")
	}
	const (
		out    = "examples/records"
		design = "github.com/quiver-go/quiver/examples/records/design"
	)
	root := examplecheck.ModuleRoot(t, out)
	goa := examplecheck.GoaCLI(t, root)
	// The Node client of mcp's tests and the benchmark module are not
	// needed to build the program.
	dir := examplecheck.CopyModule(t, root, "mcp/testdata/node", "bench")
	program := filepath.Join(dir, filepath.FromSlash(out), "cmd", "scopes", "main.go")
	if err := os.MkdirAll(filepath.Dir(program), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(program, []byte(scopesProgram), 0o644); err != nil {
		t.Fatal(err)
	}

	// The edited tools, named by the generated idents.
	var (
		exposed    = workspace.CountRows     // Exposure "read_only" → "full"
		nowGated   = workspace.ListCharts    // gains a Confirmation
		ungated    = workspace.SaveView      // loses its Confirmation
		undeferred = workspace.GetIndexStats // leaves the agent's Deferred call…
		deferred   = workspace.DescribeTable // …for this one
		all        = []tools.Exposure{tools.ExposureReadOnly, tools.ExposureStaging, tools.ExposureFull}
		readOnly   = all[0]
		staging    = all[1]
		full       = all[2]
	)

	before := runScopes(t, dir, "before the edits")

	// What the edits rely on, so that each move is observable.
	for _, tier := range all {
		before.want(t, "listed", tier, exposed, true)
		before.want(t, "listed", tier, nowGated, true)
		before.want(t, "listed", tier, ungated, false) // gated: listed to no one
		before.want(t, "listed", tier, undeferred, true)
		before.want(t, "inline", tier, undeferred, false)
		before.want(t, "inline", tier, deferred, true)
	}
	wantIn(t, "gated", before.Gated, nowGated, false)
	wantIn(t, "gated", before.Gated, ungated, true)
	wantIn(t, "gated", before.Gated, exposed, false)
	wantIn(t, "deferred", before.Deferred, undeferred, true)
	wantIn(t, "deferred", before.Deferred, deferred, false)
	wantIn(t, "deferred", before.Deferred, nowGated, false)
	wantIn(t, "deferred", before.Deferred, ungated, false)
	wantIn(t, "deferred", before.Deferred, exposed, false)
	if t.Failed() {
		t.FailNow()
	}

	designDir := filepath.Join(dir, filepath.FromSlash(out), "design")
	setExposure(t, designDir, exposed, "read_only", "full")
	addConfirmation(t, designDir, nowGated)
	removeConfirmation(t, designDir, ungated)
	replaceDeferred(t, designDir, undeferred, deferred)
	examplecheck.GoaGen(t, goa, dir, design, out)

	after := runScopes(t, dir, "after the edits")

	// Each list must differ from its baseline by exactly these moves.
	want := moves{}
	for _, kind := range []string{"listed", "inline"} {
		// Above read_only and staging now: listed to full alone.
		want.remove(kind, readOnly, exposed)
		want.remove(kind, staging, exposed)
		// Gated: listed to no tier (MCP cannot ask a person).
		for _, tier := range all {
			want.remove(kind, tier, nowGated)
		}
		// No longer gated: listed to its tier, full.
		want.add(kind, full, ungated)
	}
	for _, tier := range all {
		// Inline now, deferred now: what a searching client lists first.
		want.add("inline", tier, undeferred)
		want.remove("inline", tier, deferred)
	}
	want.add("gated", "", nowGated)
	want.remove("gated", "", ungated)
	want.add("deferred", "", deferred)
	want.remove("deferred", "", undeferred)

	lists := map[string][2][]string{
		"gated":    {idents(before.Gated), idents(after.Gated)},
		"deferred": {idents(before.Deferred), idents(after.Deferred)},
	}
	for _, tier := range all {
		lists[listKey("listed", tier)] = [2][]string{before.Listed[tier], after.Listed[tier]}
		lists[listKey("inline", tier)] = [2][]string{before.Inline[tier], after.Inline[tier]}
	}
	for key := range want {
		if _, ok := lists[key]; !ok {
			t.Errorf("the test expects moves in %s, which it does not compare", key)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(lists)) {
		b, a := lists[key][0], lists[key][1]
		if len(b) == 0 || len(a) == 0 {
			t.Errorf("%s is empty (before: %v, after: %v)", key, b, a)
		}
		added, removed := diff(b, a)
		w := want[key]
		slices.Sort(w.added)
		slices.Sort(w.removed)
		if !slices.Equal(added, w.added) || !slices.Equal(removed, w.removed) {
			t.Errorf("%s: added %v and removed %v, want added %v and removed %v\n\tbefore: %v\n\tafter:  %v",
				key, added, removed, w.added, w.removed, b, a)
		}
	}
}

// scopes is what scopesProgram prints.
type scopes struct {
	// Listed are the tools/list names a client of each tier gets from a
	// server with ExposeAll (every tool in its scope at once).
	Listed map[tools.Exposure][]string `json:"listed"`
	// Inline are the names the same client gets before any search from a
	// server without ExposeAll: the inline tools and the search tool.
	Inline map[tools.Exposure][]string `json:"inline"`
	// Gated are the idents of the tools whose spec has a Confirmation.
	Gated []tools.Ident `json:"gated"`
	// Deferred is the agent's DeferredTools().
	Deferred []tools.Ident `json:"deferred"`
}

// want checks whether the tools/list of kind ("listed" or "inline") of a
// client of tier holds id (by its wire name, the tool's name here).
func (s *scopes) want(t *testing.T, kind string, tier tools.Exposure, id tools.Ident, in bool) {
	t.Helper()
	list := s.Listed
	if kind == "inline" {
		list = s.Inline
	}
	if got := slices.Contains(list[tier], id.Tool()); got != in {
		t.Errorf("before the edits, %s lists %s: %v, want %v: the test's edits rely on it\n\t%v", listKey(kind, tier), id.Tool(), got, in, list[tier])
	}
}

// wantIn checks whether set (named name) holds id.
func wantIn(t *testing.T, name string, set []tools.Ident, id tools.Ident, in bool) {
	t.Helper()
	if got := slices.Contains(set, id); got != in {
		t.Errorf("before the edits, the %s set holds %s: %v, want %v: the test's edits rely on it\n\t%v", name, id, got, in, set)
	}
}

// moves are the expected changes of each list, by listKey.
type moves map[string]struct{ added, removed []string }

func (m moves) add(kind string, tier tools.Exposure, id tools.Ident) {
	e := m[listKey(kind, tier)]
	e.added = append(e.added, entryName(kind, id))
	m[listKey(kind, tier)] = e
}

func (m moves) remove(kind string, tier tools.Exposure, id tools.Ident) {
	e := m[listKey(kind, tier)]
	e.removed = append(e.removed, entryName(kind, id))
	m[listKey(kind, tier)] = e
}

// listKey names a list: "listed/read_only", "inline/full", "gated".
func listKey(kind string, tier tools.Exposure) string {
	if tier == "" {
		return kind
	}
	return kind + "/" + string(tier)
}

// entryName is how a list of kind names a tool: tools/list by wire name
// (the tool's name in this toolset), the sets by ident.
func entryName(kind string, id tools.Ident) string {
	if kind == "listed" || kind == "inline" {
		return id.Tool()
	}
	return string(id)
}

func idents(ids []tools.Ident) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// diff returns what after adds to before and what it removes, sorted.
func diff(before, after []string) (added, removed []string) {
	for _, s := range after {
		if !slices.Contains(before, s) {
			added = append(added, s)
		}
	}
	for _, s := range before {
		if !slices.Contains(after, s) {
			removed = append(removed, s)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// runScopes builds scopesProgram in the module copy at dir (with the
// generated packages it holds now) and returns what it prints.
func runScopes(t *testing.T, dir, when string) *scopes {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "scopes")
	if b, err := examplecheck.Go(dir, "build", "-o", bin, "./examples/records/cmd/scopes"); err != nil {
		t.Fatalf("%s: build the scopes program: %v\n%s", when, err, b)
	}
	cmd := exec.Command(bin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: the scopes program: %v\n%s", when, err, stderr.String())
	}
	var s scopes
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: the scopes program printed %s: %v", when, b, err)
	}
	return &s
}

// designFile is one parsed file of the design copy.
type designFile struct {
	path string
	src  []byte
	fset *token.FileSet
	file *ast.File
}

// parseDesign parses the design's Go files in dir (tests excluded).
func parseDesign(t *testing.T, dir string) []*designFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*designFile
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &designFile{path: p, src: src, fset: fset, file: f})
	}
	return out
}

// splice replaces the source between from and to with text and writes the
// file.
func (f *designFile) splice(t *testing.T, from, to token.Pos, text string) {
	t.Helper()
	i, j := f.fset.Position(from).Offset, f.fset.Position(to).Offset
	src := append(append(slices.Clone(f.src[:i]), text...), f.src[j:]...)
	if err := os.WriteFile(f.path, src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// calls returns the calls of fn found in n.
func calls(n ast.Node, fn string) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == fn {
				out = append(out, c)
			}
		}
		return true
	})
	return out
}

// stringArg returns the value of a string literal argument.
func stringArg(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// toolDecl finds the Tool call declaring id in the design at dir: its file
// and the body of its DSL function.
func toolDecl(t *testing.T, dir string, id tools.Ident) (*designFile, *ast.BlockStmt) {
	t.Helper()
	var found []*designFile
	var body *ast.BlockStmt
	for _, f := range parseDesign(t, dir) {
		for _, c := range calls(f.file, "Tool") {
			if len(c.Args) == 0 {
				continue
			}
			if name, ok := stringArg(c.Args[0]); !ok || name != id.Tool() {
				continue
			}
			fn, ok := c.Args[len(c.Args)-1].(*ast.FuncLit)
			if !ok {
				t.Fatalf("%s: the declaration of %s has no DSL function", f.fset.Position(c.Pos()), id.Tool())
			}
			found, body = append(found, f), fn.Body
		}
	}
	if len(found) != 1 {
		t.Fatalf("the design declares tool %s %d times, want once", id.Tool(), len(found))
	}
	return found[0], body
}

// statement returns the call of fn among the top-level statements of a
// tool's DSL function, or nil.
func statement(t *testing.T, body *ast.BlockStmt, fn string) *ast.CallExpr {
	t.Helper()
	var out *ast.CallExpr
	for _, st := range body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		if c, ok := es.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == fn {
				if out != nil {
					t.Fatalf("a tool's DSL calls %s twice", fn)
				}
				out = c
			}
		}
	}
	return out
}

// setExposure changes the tier of id's Exposure(from) to Exposure(to).
func setExposure(t *testing.T, dir string, id tools.Ident, from, to string) {
	t.Helper()
	f, body := toolDecl(t, dir, id)
	c := statement(t, body, "Exposure")
	if c == nil || len(c.Args) != 1 {
		t.Fatalf("%s declares no Exposure", id)
	}
	if tier, _ := stringArg(c.Args[0]); tier != from {
		t.Fatalf("%s declares Exposure(%q), want %q", id, tier, from)
	}
	f.splice(t, c.Args[0].Pos(), c.Args[0].End(), strconv.Quote(to))
}

// addConfirmation adds a Confirmation to id, which has none.
func addConfirmation(t *testing.T, dir string, id tools.Ident) {
	t.Helper()
	f, body := toolDecl(t, dir, id)
	if statement(t, body, "Confirmation") != nil {
		t.Fatalf("%s already declares a Confirmation", id)
	}
	f.splice(t, body.Rbrace, body.Rbrace, "\tConfirmation(func() { Title("+strconv.Quote("Run "+id.Tool()+"?")+") })\n\t")
}

// removeConfirmation removes the Confirmation of id.
func removeConfirmation(t *testing.T, dir string, id tools.Ident) {
	t.Helper()
	f, body := toolDecl(t, dir, id)
	c := statement(t, body, "Confirmation")
	if c == nil {
		t.Fatalf("%s declares no Confirmation", id)
	}
	f.splice(t, c.Pos(), c.End(), "")
}

// replaceDeferred replaces from by to in the agent's Deferred call.
func replaceDeferred(t *testing.T, dir string, from, to tools.Ident) {
	t.Helper()
	var file *designFile
	var arg ast.Expr
	for _, f := range parseDesign(t, dir) {
		for _, c := range calls(f.file, "Deferred") {
			for _, a := range c.Args {
				switch name, _ := stringArg(a); name {
				case to.Tool():
					t.Fatalf("%s: Deferred already names %s", f.fset.Position(a.Pos()), name)
				case from.Tool():
					if arg != nil {
						t.Fatalf("%s: Deferred names %s twice", f.fset.Position(a.Pos()), name)
					}
					file, arg = f, a
				}
			}
		}
	}
	if arg == nil {
		t.Fatalf("no Deferred call of the design names %s", from.Tool())
	}
	file.splice(t, arg.Pos(), arg.End(), strconv.Quote(to.Tool()))
}

// scopesProgram is the program the test builds in the module copy: it
// serves the generated workspace toolset with mcp.New (every tool running
// a no-op, the agent's DeferredTools deferred), connects a Go SDK client
// per tier over streamable HTTP, and prints what each lists, with and
// without ExposeAll, and the confirmation and deferred sets (scopes).
const scopesProgram = `// Command scopes prints the MCP listing of each tier, the confirmation set
// and the deferred set the generated records packages give (written by
// examples/records/scopes_test.go).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/examples/records/gen/agents/workspace/assistant"
	"github.com/quiver-go/quiver/examples/records/gen/toolsets/workspace"
	"github.com/quiver-go/quiver/internal/httpauth"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

type report struct {
	Listed   map[tools.Exposure][]string ` + "`json:\"listed\"`" + `
	Inline   map[tools.Exposure][]string ` + "`json:\"inline\"`" + `
	Gated    []tools.Ident               ` + "`json:\"gated\"`" + `
	Deferred []tools.Ident               ` + "`json:\"deferred\"`" + `
}

var tiers = []tools.Exposure{tools.ExposureReadOnly, tools.ExposureStaging, tools.ExposureFull}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "scopes:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	deferred := assistant.DeferredTools()
	noop := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		return &toolcall.Result{Result: json.RawMessage("{}")}, nil
	})
	specs := workspace.Specs()
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: assistant.ToolsetWorkspace, Specs: specs, Executor: noop}},
		func(id tools.Ident) bool { return slices.Contains(deferred, id) })
	if err != nil {
		return err
	}
	out := report{Deferred: deferred, Gated: []tools.Ident{}}
	for _, s := range specs {
		if s.Confirmation != nil {
			out.Gated = append(out.Gated, s.Name)
		}
	}
	slices.Sort(out.Gated)
	if out.Listed, err = listings(ctx, src, true); err != nil {
		return err
	}
	if out.Inline, err = listings(ctx, src, false); err != nil {
		return err
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Printf("%s\n", b)
	return err
}

// listings serves src with one credential per tier and returns the sorted
// tools/list names a client of each tier gets.
func listings(ctx context.Context, src mcp.Source, exposeAll bool) (map[tools.Exposure][]string, error) {
	creds := map[string]tools.Exposure{}
	for _, tier := range tiers {
		creds["key-"+string(tier)] = tier
	}
	s, err := mcp.New(mcp.Config{Source: src, Credentials: creds, ExposeAll: exposeAll})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.Ready(ctx); err != nil {
		return nil, err
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	out := map[tools.Exposure][]string{}
	for _, tier := range tiers {
		names, err := list(ctx, hs.URL, "key-"+string(tier))
		if err != nil {
			return nil, fmt.Errorf("%s client (ExposeAll %v): %w", tier, exposeAll, err)
		}
		out[tier] = names
	}
	return out, nil
}

// list connects a client with key and returns the names it lists.
func list(ctx context.Context, url, key string) ([]string, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "scopes", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: httpauth.BearerTransport{Key: key}},
	}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	names := []string{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names, nil
}
`
