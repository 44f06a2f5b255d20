package codegen_test

import (
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// TestBindToEdgeShapesBuild builds and runs the adapters of shapes beyond
// plain nesting: a user type aliasing a primitive, Any and Bytes fields, a
// recursive type, a result type, an inline server data schema, and a
// service's export mixing a forwarded tool with one its executor runs.
func TestBindToEdgeShapesBuild(t *testing.T) {
	svc, ours := generateWithServices(t, func() {
		SKU := Type("SKU", String)
		Category := Type("Category", func() {
			Attribute("name", String)
			Attribute("sku", SKU)
			Attribute("children", ArrayOf("Category"))
			Required("name")
		})
		Tree := ResultType("application/vnd.tree", "Tree", func() {
			Attribute("root", Category)
			Attribute("extra", Any)
			Attribute("blob", Bytes)
			Attribute("stats", func() {
				Attribute("depth", Int)
				Attribute("names", ArrayOf(String))
				Required("depth")
			})
			Required("root")
		})
		Service("catalog", func() {
			Method("Browse", func() {
				Payload(func() {
					Attribute("root", Category)
					Attribute("extra", Any)
					Required("root")
				})
				Result(Tree)
			})
		})
		Toolset("browse", func() {
			Tool("browse", "Browse the catalog.", func() {
				Args(func() {
					Attribute("root", Category)
					Attribute("extra", Any)
					Required("root")
				})
				Return(func() {
					Attribute("root", Category)
					Attribute("blob", Bytes)
					Required("root")
				})
				BindTo("catalog", "Browse")
				ServerData("catalog.stats", func() {
					Attribute("depth", Int)
					Required("depth")
				}, func() { FromMethodResultField("stats") })
			})
		})
		Service("ops", func() {
			Export("catalog-tools", func() {
				Tool("browse", "Browse the catalog.", func() {
					Args(func() {
						Attribute("root", Category)
						Required("root")
					})
					Return(func() {
						Attribute("root", Category)
						Required("root")
					})
					Passthrough("browse", "catalog", "Browse")
				})
				Tool("note", "Take a note.", func() {})
			})
		})
	})
	var exportAdapters string
	for _, f := range ours {
		if strings.HasSuffix(f.Path, "/adapters/executor.go") && strings.Contains(f.Path, "catalogtools") {
			exportAdapters = "example.com/app/" + strings.TrimSuffix(f.Path, "/executor.go")
		}
	}
	if exportAdapters == "" {
		t.Fatal("no adapters generated for the service's export")
	}
	main := `package main

import (
	"context"
	"encoding/json"
	"fmt"

	"example.com/app/gen/catalog"
	"example.com/app/gen/toolsets/browse/adapters"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	exported "` + exportAdapters + `"
)

type svc struct{ got *catalog.BrowsePayload }

func (s *svc) Browse(_ context.Context, p *catalog.BrowsePayload) (*catalog.Tree, error) {
	s.got = p
	return &catalog.Tree{Root: p.Root, Extra: p.Extra, Blob: []byte("hi"), Stats: &struct {
		Depth int
		Names []string
	}{Depth: 2, Names: []string{"x"}}}, nil
}

func main() {
	s := &svc{}
	payload := json.RawMessage(` + "`" + `{"root":{"name":"a","sku":"S1","children":[{"name":"b","children":[{"name":"c"}]}]},"extra":{"k":[1]}}` + "`" + `)
	res, err := adapters.NewBrowseExecutor(s).Execute(context.Background(), &runtime.ToolCall{Ident: "browse.browse", Payload: payload})
	if err != nil || res.Failure != nil {
		panic(fmt.Sprintf("%+v %v", res, err))
	}
	if s.got.Root.Children[0].Children[0].Name != "c" || *s.got.Root.Sku != catalog.SKU("S1") {
		panic(fmt.Sprintf("payload %+v", s.got.Root))
	}
	fmt.Println(string(res.Result), string(res.ServerData[0].Data))
	notes := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		return &toolcall.Result{Result: json.RawMessage(` + "`{}`" + `)}, nil
	})
	ex := exported.NewCatalogToolsExecutor(s, notes)
	res, err = ex.Execute(context.Background(), &runtime.ToolCall{Ident: "catalog-tools.browse", Payload: json.RawMessage(` + "`" + `{"root":{"name":"z"}}` + "`" + `)})
	if err != nil || res.Failure != nil {
		panic(fmt.Sprintf("%+v %v", res, err))
	}
	fmt.Println(string(res.Result))
	res, err = ex.Execute(context.Background(), &runtime.ToolCall{Ident: "catalog-tools.note", Payload: json.RawMessage(` + "`{}`" + `)})
	if err != nil || res.Failure != nil {
		panic(fmt.Sprintf("%+v %v", res, err))
	}
	fmt.Println(string(res.Result))
}
`
	out := buildAndRun(t, append(svc, ours...), main)
	const want = `{"root":{"name":"a","sku":"S1","children":[{"name":"b","children":[{"name":"c"}]}]},"blob":"aGk="} {"depth":2}
{"root":{"name":"z"}}
{}`
	if strings.TrimSpace(out) != want {
		t.Errorf("check program printed:\n%s\nwant:\n%s", out, want)
	}
}
