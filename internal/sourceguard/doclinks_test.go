package sourceguard

import (
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docLinkPackages are the packages whose doc comments must link the
// declarations they name: a [Name] that resolves to nothing is a typo or a
// renamed declaration, and go doc prints it as plain brackets.
var docLinkPackages = []string{"tools", "tools/contract", "tools/catalogfile", "toolcall", "runtime", "catalog", "discovery", "model", "mcp", "mcp/upstream", "mcp/gateway", "registry", "search"}

// bracketed finds [Name] and [pkg.Name] written where a doc link may be:
// after a space, punctuation or the line's start, not in tools[3].
var bracketed = regexp.MustCompile(`(?:^|[\s(,;:"'])\[(\*?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2})\]`)

// TestDocLinksResolve fails for each [Name] in the listed packages' doc
// comments that go/doc does not turn into a link.
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	pkgs := map[string]*doc.Package{}
	load := func(importPath string) *doc.Package {
		if pkg, ok := pkgs[importPath]; ok {
			return pkg
		}
		pkg := docPackage(t, filepath.Join(root, strings.TrimPrefix(importPath, modulePath)), importPath)
		pkgs[importPath] = pkg
		return pkg
	}
	links := 0
	for _, dir := range docLinkPackages {
		pkg := load(modulePath + dir)
		p := pkg.Parser()
		for where, text := range docComments(pkg) {
			d := p.Parse(text)
			for _, name := range unresolvedLinks(d) {
				t.Errorf("%s: %s: [%s] names no declaration go doc can link", dir, where, name)
			}
			// go/doc links [pkg.Name] for any Name of an imported package,
			// or of the package itself when qualified: the module's own
			// packages are checked here.
			for _, l := range docLinks(d) {
				links++
				if !strings.HasPrefix(l.ImportPath, modulePath) {
					continue
				}
				if !declares(load(l.ImportPath), l.Recv, l.Name) {
					t.Errorf("%s: %s: [%s] names no declaration of %s", dir, where, l.DefaultURL(""), l.ImportPath)
				}
			}
		}
	}
	t.Logf("%d doc links in %d packages", links, len(docLinkPackages))
}

// modulePath is the module's import path, with the slash before a
// package's folder.
const modulePath = "github.com/quiver-go/quiver/"

// declares reports whether pkg declares name, or recv's method or field
// name.
func declares(pkg *doc.Package, recv, name string) bool {
	for where := range docComments(pkg) {
		if where == name || (recv != "" && where == recv+"."+name) {
			return true
		}
		for _, n := range strings.Split(where, ",") {
			if n == name {
				return true
			}
		}
	}
	return false
}

// docLinks returns the links to declarations in d.
func docLinks(d *comment.Doc) []*comment.DocLink {
	var out []*comment.DocLink
	walkText(d, func(x comment.Text) {
		if l, ok := x.(*comment.DocLink); ok {
			out = append(out, l)
		}
	})
	return out
}

// docPackage reads the non-test files of the package in dir.
func docPackage(t *testing.T, dir, importPath string) *doc.Package {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	pkg, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// docComments yields the package's doc comments by what they document:
// the package, its exported constants, variables, types (with their
// fields), functions and methods.
func docComments(pkg *doc.Package) map[string]string {
	out := map[string]string{"package": pkg.Doc}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			out[strings.Join(v.Names, ",")] = v.Doc
		}
	}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			out[prefix+f.Name] = f.Doc
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	funcs("", pkg.Funcs)
	for _, typ := range pkg.Types {
		out[typ.Name] = typ.Doc
		values(typ.Consts)
		values(typ.Vars)
		funcs("", typ.Funcs)
		funcs(typ.Name+".", typ.Methods)
		for _, spec := range typ.Decl.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok {
				continue
			}
			var fields *ast.FieldList
			switch x := ts.Type.(type) {
			case *ast.StructType:
				fields = x.Fields
			case *ast.InterfaceType:
				fields = x.Methods
			}
			if fields == nil {
				continue
			}
			for _, f := range fields.List {
				if f.Doc != nil && len(f.Names) > 0 && f.Names[0].IsExported() {
					out[typ.Name+"."+f.Names[0].Name] = f.Doc.Text()
				}
			}
		}
	}
	return out
}

// unresolvedLinks returns the bracketed names left in d's plain text: the
// parser turns every [Name] it can resolve into a link.
func unresolvedLinks(d *comment.Doc) []string {
	var out []string
	walkText(d, func(x comment.Text) {
		var text string
		switch x := x.(type) {
		case comment.Plain:
			text = string(x)
		case comment.Italic:
			text = string(x)
		}
		for _, m := range bracketed.FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
	})
	return out
}

// walkText calls fn for every piece of text of d's paragraphs, headings
// and list items, and of the links in them; code blocks have none.
func walkText(d *comment.Doc, fn func(comment.Text)) {
	var walk func(texts []comment.Text)
	walk = func(texts []comment.Text) {
		for _, x := range texts {
			fn(x)
			if l, ok := x.(*comment.Link); ok {
				walk(l.Text)
			}
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			walk(b.Text)
		case *comment.Heading:
			walk(b.Text)
		case *comment.List:
			for _, it := range b.Items {
				for _, c := range it.Content {
					if p, ok := c.(*comment.Paragraph); ok {
						walk(p.Text)
					}
				}
			}
		}
	}
}
