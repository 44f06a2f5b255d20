package sourceguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The infrastructure the module has once: the guards below fail when a
// second copy appears.
const (
	// nodeFile assembles every registry node (registry/node).
	nodeFile = "registry/node/node.go"
	// loopbackFile hands out loopback ports (internal/loopback).
	loopbackFile = "internal/loopback/loopback.go"
	// bearerFile holds the bearer RoundTripper (internal/httpauth).
	bearerFile = "internal/httpauth/bearer.go"
	// syncbufFile holds the mutex-guarded buffer (internal/syncbuf).
	syncbufFile = "internal/syncbuf/buffer.go"
	// registryServer is the registry service's import path.
	registryServer = "github.com/quiver-go/quiver/registry/server"
)

// parsed parses f, failing the test when it does not parse.
func parsed(t *testing.T, f sourceFile) *ast.File {
	t.Helper()
	af, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Text, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", f.Path, err)
	}
	return af
}

// importName is the name f refers to path by ("" when f does not import
// it).
func importName(af *ast.File, path string) string {
	for _, im := range af.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			if im.Name != nil {
				return im.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}

// without returns the paths of m but those allowed, sorted.
func without(m map[string]int, allowed ...string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(allowed, p) {
			out = append(out, p)
		}
	}
	return out
}

// nodeAssemblies counts, per file, the calls of registry/server's New —
// how a registry node is assembled — under whatever name the file
// imports the package by.
func nodeAssemblies(t *testing.T, files []sourceFile) map[string]int {
	out := map[string]int{}
	for _, f := range files {
		if !strings.Contains(f.Text, registryServer+`"`) {
			continue
		}
		name := importName(parsed(t, f), registryServer)
		if name == "" || name == "_" {
			continue
		}
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\.New\(`)
		if n := len(re.FindAllStringIndex(f.Text, -1)); n > 0 {
			out[f.Path] = n
		}
	}
	return out
}

// TestOneRegistryNodeAssembly: registry/node is the only place outside
// registry/server (whose own tests build services) that calls server.New:
// a command, bench, example or test helper that needs a node starts one
// with node.Start, and what it tunes is a field of node.Config.
func TestOneRegistryNodeAssembly(t *testing.T) {
	got := nodeAssemblies(t, handWritten(t))
	if got[nodeFile] != 1 {
		t.Fatalf("%s calls server.New %d times, want once: the guard no longer sees the assembly (%v)", nodeFile, got[nodeFile], got)
	}
	var extra []string
	for _, p := range without(got, nodeFile) {
		if !strings.HasPrefix(p, "registry/server/") {
			extra = append(extra, p)
		}
	}
	if len(extra) > 0 {
		t.Errorf("server.New is called outside registry/node in %v: start the node with node.Start (registry/node), adding a field to node.Config for what it needs", extra)
	}
}

// TestTheClientNeverLinksTheNode: the client package registry, and the
// runtime that imports it, depend on registry/node neither directly nor
// through another package, so that an application calling a registry
// links no store and no server. (For registry itself the compiler agrees:
// registry/server imports it, so the import would be a cycle; the runtime
// has no such backstop.)
func TestTheClientNeverLinksTheNode(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	const nodePkg = "github.com/quiver-go/quiver/registry/node"
	out, err := exec.Command(gobin, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`,
		"github.com/quiver-go/quiver/registry", "github.com/quiver-go/quiver/runtime").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	listed := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		listed++
		if slices.Contains(fields[1:], nodePkg) {
			t.Errorf("%s depends on %s: the client side must not link the server", fields[0], nodePkg)
		}
	}
	if listed != 2 {
		t.Fatalf("go list named %d packages, want 2:\n%s", listed, out)
	}
}

// freePortName matches the names that say "a free port" (freePort,
// freeAddr, FreeAddr, getFreeLoopbackPort, unusedPort, …).
var freePortName = regexp.MustCompile(`(?i)^(get|pick|find)?(free|unused)\w*(port|addr|address)$`)

// listenOnlyToClose finds the functions (declared or literal) that return
// something and listen only to close the listener again — using it for
// nothing but Addr and Close: a free port picked by binding and releasing
// it. It returns them as file: line.
func listenOnlyToClose(t *testing.T, files []sourceFile) map[string]int {
	out := map[string]int{}
	for _, f := range files {
		if !strings.Contains(f.Text, "Listen") {
			continue
		}
		af := parsed(t, f)
		ast.Inspect(af, func(n ast.Node) bool {
			var typ *ast.FuncType
			var body *ast.BlockStmt
			switch fn := n.(type) {
			case *ast.FuncDecl:
				typ, body = fn.Type, fn.Body
			case *ast.FuncLit:
				typ, body = fn.Type, fn.Body
			default:
				return true
			}
			if body == nil || typ.Results == nil || len(typ.Results.List) == 0 {
				return true
			}
			for _, name := range listenersIn(body) {
				if onlyAddrAndClose(body, name) {
					out[f.Path]++
				}
			}
			return true
		})
	}
	return out
}

// listenersIn names the variables body assigns a Listen call's first
// result to (net.Listen, net.ListenTCP, a ListenConfig's Listen,
// loopback.Listen), in body itself, not in the functions it holds.
func listenersIn(body *ast.BlockStmt) []string {
	var names []string
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if len(s.Rhs) != 1 || len(s.Lhs) == 0 {
				return true
			}
			call, ok := s.Rhs[0].(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "Listen") {
				return true
			}
			if id, ok := s.Lhs[0].(*ast.Ident); ok && id.Name != "_" {
				names = append(names, id.Name)
			}
		}
		return true
	})
	return names
}

// onlyAddrAndClose reports whether every use of name in body, but its
// assignments, is name.Addr or name.Close, and it is closed.
func onlyAddrAndClose(body *ast.BlockStmt, name string) bool {
	uses, benign, closed := 0, 0, false
	assigned := map[*ast.Ident]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == name {
					assigned[id] = true
				}
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == name {
				switch x.Sel.Name {
				case "Close":
					benign++
					closed = true
				case "Addr":
					benign++
				}
			}
		case *ast.Ident:
			if x.Name == name && !assigned[x] {
				uses++
			}
		}
		return true
	})
	return closed && uses == benign
}

// TestOneFreePortFunction: a free port is picked in internal/loopback
// only (FreeAddr; registrytest.FreeAddr is its testing.TB form). Code that
// can keep the listener listens with loopback.Listen and serves on it;
// nothing else binds a port only to release it, nor declares a function
// named for a free port.
func TestOneFreePortFunction(t *testing.T) {
	files := handWritten(t)
	got := listenOnlyToClose(t, files)
	if got[loopbackFile] != 1 {
		t.Fatalf("%s has %d functions that bind a port to release it, want 1 (FreeAddr): the guard no longer sees it (%v)", loopbackFile, got[loopbackFile], got)
	}
	if extra := without(got, loopbackFile); len(extra) > 0 {
		t.Errorf("a port is bound only to be released in %v: listen with loopback.Listen and keep the listener, or, for a process started later, use loopback.FreeAddr", extra)
	}

	named := map[string][]string{}
	for _, f := range files {
		for _, d := range parsed(t, f).Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && freePortName.MatchString(fn.Name.Name) {
				named[f.Path] = append(named[f.Path], fn.Name.Name)
			}
		}
	}
	want := map[string][]string{loopbackFile: {"FreeAddr"}, "internal/registrytest/free_addr.go": {"FreeAddr"}}
	for p, names := range named {
		if !slices.Equal(names, want[p]) {
			t.Errorf("%s declares %v: the free-port function is loopback.FreeAddr (registrytest.FreeAddr in tests)", p, names)
		}
	}
	for p := range want {
		if named[p] == nil {
			t.Errorf("%s declares no FreeAddr: the guard no longer sees it (%v)", p, named)
		}
	}
	if b, ok := fileText(files, "internal/registrytest/free_addr.go"); ok && !strings.Contains(b, "loopback.FreeAddr()") {
		t.Error("registrytest.FreeAddr does not call loopback.FreeAddr: it is a second free-port function")
	}
}

// fileText is the text of the file at path.
func fileText(files []sourceFile, path string) (string, bool) {
	for _, f := range files {
		if f.Path == path {
			return f.Text, true
		}
	}
	return "", false
}

// roundTripMethod starts a RoundTrip method, in a file or in Go source a
// file holds as a string (a program a test builds).
var roundTripMethod = regexp.MustCompile(`(?m)^func \([^)]*\) RoundTrip\(`)

// bearerRoundTrippers counts, per file, the RoundTrip methods whose body
// says Bearer.
func bearerRoundTrippers(files []sourceFile) map[string]int {
	out := map[string]int{}
	for _, f := range files {
		for _, loc := range roundTripMethod.FindAllStringIndex(f.Text, -1) {
			body := f.Text[loc[0]:]
			if end := strings.Index(body, "\n}\n"); end >= 0 {
				body = body[:end]
			}
			if strings.Contains(body, "Bearer") {
				out[f.Path]++
			}
		}
	}
	return out
}

// bearerHeader sets a bearer credential on a request.
var bearerHeader = regexp.MustCompile(`Header\.(Set|Add)\("Authorization", "Bearer "`)

// testOnlyDirs are the folders of the packages for tests only
// (internal/providerfake's guard lists them): non-test files, but no
// product code.
var testOnlyDirs = []string{"internal/providerfake/", "internal/registrytest/", "internal/redistest/", "internal/examplecheck/"}

// productOnly drops the files of the test-only packages from files.
func productOnly(files []sourceFile) []sourceFile {
	var out []sourceFile
	for _, f := range files {
		if !slices.ContainsFunc(testOnlyDirs, func(d string) bool { return strings.HasPrefix(f.Path, d) }) {
			out = append(out, f)
		}
	}
	return out
}

// TestOneBearerRoundTripper: httpauth.BearerTransport is the module's one
// RoundTripper that sends a bearer credential, in product code and tests
// (and the programs tests build); in product code only it and the registry
// client's key step (registry/transport.go) set one at all — a test may
// set one on a request it sends.
func TestOneBearerRoundTripper(t *testing.T) {
	got := bearerRoundTrippers(handWritten(t))
	if got[bearerFile] != 1 {
		t.Fatalf("%s has %d bearer RoundTrip methods, want 1: the guard no longer sees BearerTransport (%v)", bearerFile, got[bearerFile], got)
	}
	if extra := without(got, bearerFile); len(extra) > 0 {
		t.Errorf("a second bearer RoundTripper in %v: use httpauth.BearerTransport", extra)
	}
	sets := where(productOnly(productFiles(t)), bearerHeader)
	if sets[bearerFile] != 1 || sets["registry/transport.go"] != 1 {
		t.Fatalf("bearer headers set in product code: %v; want one in %s and one in registry/transport.go: the guard no longer sees them", sets, bearerFile)
	}
	if extra := without(sets, bearerFile, "registry/transport.go"); len(extra) > 0 {
		t.Errorf("product code sets a bearer credential in %v: send it through httpauth.BearerTransport (or registry.WithAPIKey for the registry)", extra)
	}
}

// syncBufferShape reports whether a struct is a buffer and a mutex, and
// nothing else.
func syncBufferShape(st *ast.StructType) bool {
	var mutex, buffer bool
	n := 0
	for _, fld := range st.Fields.List {
		names := max(len(fld.Names), 1)
		n += names
		sel, ok := fld.Type.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		pkg, _ := sel.X.(*ast.Ident)
		if pkg == nil {
			continue
		}
		switch pkg.Name + "." + sel.Sel.Name {
		case "sync.Mutex", "sync.RWMutex":
			mutex = true
		case "bytes.Buffer", "strings.Builder":
			buffer = true
		}
	}
	return n == 2 && mutex && buffer
}

// TestOneSyncBuffer: syncbuf.Buffer is the module's one mutex-guarded
// buffer; no other struct is a buffer and a mutex alone, nor named so.
func TestOneSyncBuffer(t *testing.T) {
	shaped := map[string]int{}
	named := regexp.MustCompile(`(?i)^(sync|safe|locked|log)_?buf`)
	for _, f := range handWritten(t) {
		if !strings.Contains(f.Text, "bytes.Buffer") && !strings.Contains(f.Text, "strings.Builder") {
			continue
		}
		ast.Inspect(parsed(t, f), func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok && (syncBufferShape(st) || named.MatchString(ts.Name.Name)) {
				shaped[f.Path]++
			}
			return true
		})
	}
	if shaped[syncbufFile] != 1 {
		t.Fatalf("%s has %d mutex-guarded buffers, want 1: the guard no longer sees syncbuf.Buffer (%v)", syncbufFile, shaped[syncbufFile], shaped)
	}
	if n := total(shaped); n != 1 {
		t.Errorf("the module declares %d mutex-guarded buffers, want 1: the others are in %v: use syncbuf.Buffer", n, without(shaped, syncbufFile))
	}
}
