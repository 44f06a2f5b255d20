package codegen_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	goacodegen "goa.design/goa/v3/codegen"
	"goa.design/goa/v3/codegen/generator"
	. "goa.design/goa/v3/dsl"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/codegen"
	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/dsl/dsltest"
)

// bindToDesign declares a service with two methods and a toolset binding
// one tool to each: "search" with the method's own payload and result
// types, "find" with a subset of the payload fields, an injected
// session_id, a subset of the result and server data projected from it.
// "finish" is not bound.
func bindToDesign() {
	var SearchPayload = Type("SearchPayload", func() {
		Attribute("query", String, "Search terms")
		Attribute("limit", Int, "Maximum hits", func() { Default(10) })
		Attribute("tags", ArrayOf(String), "Tags to match")
		Required("query")
	})
	var SearchResult = Type("SearchResult", func() {
		Attribute("hits", ArrayOf(String), "Matching orders")
		Attribute("total", Int, "Total matches")
		Required("hits")
	})
	Service("orders", func() {
		Method("Search", func() {
			Payload(SearchPayload)
			Result(SearchResult)
		})
		Method("Find", func() {
			Payload(func() {
				Attribute("session_id", String)
				Attribute("query", String)
				Attribute("region", String)
				Required("session_id", "query")
			})
			Result(func() {
				Attribute("items", ArrayOf(String))
				Attribute("count", Int)
				Attribute("evidence", MapOf(String, String))
				Required("items", "count")
			})
		})
	})
	Toolset("lookup", func() {
		Tool("search", "Search the orders.", func() {
			Args(SearchPayload)
			Return(SearchResult)
			BindTo("orders", "Search")
		})
		Tool("find", "Find the orders of the session.", func() {
			Args(func() {
				Attribute("session_id", String)
				Attribute("query", String, "What to find")
				Required("session_id", "query")
			})
			Return(func() {
				Attribute("items", ArrayOf(String))
				Required("items")
			})
			BindTo("orders", "Find")
			Inject("session_id")
			ServerData("orders.evidence", MapOf(String, String), func() {
				AudienceEvidence()
				FromMethodResultField("evidence")
			})
		})
		Tool("finish", "End the conversation.", func() { TerminalRun() })
	})
}

// generateWithServices evaluates design and runs Goa's service generator
// then the plugin, returning Goa's service files and the plugin's files.
func generateWithServices(t *testing.T, design func()) (svc, ours []*goacodegen.File) {
	t.Helper()
	svc, ours, err := generateWithServicesErr(t, design)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return svc, ours
}

// generateWithServicesErr is generateWithServices returning the plugin's
// error.
func generateWithServicesErr(t *testing.T, design func()) (svc, ours []*goacodegen.File, err error) {
	t.Helper()
	root, err := dsltest.Run(design)
	if err != nil {
		t.Fatalf("evaluate design: %v", err)
	}
	roots := []eval.Root{goaexpr.Root, root}
	if svc, err = generator.Service("example.com/app/gen", roots); err != nil {
		t.Fatalf("goa service generation: %v", err)
	}
	ours, err = codegen.Generate("example.com/app/gen", roots, nil)
	return svc, ours, err
}

// TestGoldenBindTo compares the generated adapters with their golden file.
func TestGoldenBindTo(t *testing.T) {
	_, files := generateWithServices(t, bindToDesign)
	dir := t.TempDir()
	paths := render(t, dir, files)
	const adapters = "gen/toolsets/lookup/adapters/executor.go"
	if !slices.Contains(paths, adapters) {
		t.Fatalf("generated %v, want %s", paths, adapters)
	}
	compareGolden(t, dir, []string{adapters}, func(string) string {
		return filepath.Join("testdata", "bindto", "executor.go.golden")
	})
}

// TestBindToAdaptersBuild builds and vets the Goa service package with the
// toolset and its adapters, and runs a program calling the executor
// against a hand-written implementation of the service.
func TestBindToAdaptersBuild(t *testing.T) {
	svc, ours := generateWithServices(t, bindToDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "bindtocheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, append(svc, ours...), string(main)); !strings.HasPrefix(out, "ok") {
		t.Errorf("check program printed %q", out)
	}
}

// TestBindToRefusals checks the shapes the adapters refuse to convert.
func TestBindToRefusals(t *testing.T) {
	cases := map[string]struct {
		args func()
		want string
	}{
		"dropped argument": {
			args: func() {
				Attribute("query", String)
				Attribute("extra", String)
				Required("query")
			},
			want: `field "extra" of Args is not a field of the method payload`,
		},
		"missing required": {
			args: func() { Attribute("region", String) },
			want: `field "query" is required by the method payload but Args lacks it`,
		},
		"optional into required": {
			args: func() { Attribute("query", String) },
			want: `field "query" is optional in Args but required in the method payload`,
		},
		"type mismatch": {
			args: func() {
				Attribute("query", Int)
				Required("query")
			},
			want: `field "query" is int in Args but string in the method payload`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root, err := dsltest.Run(func() {
				Service("svc", func() {
					Method("M", func() {
						Payload(func() {
							Attribute("query", String)
							Attribute("region", String)
							Required("query")
						})
					})
				})
				Toolset("ts", func() {
					Tool("t", "A tool.", func() {
						Args(c.args)
						BindTo("svc", "M")
					})
				})
			})
			if err != nil {
				t.Fatalf("evaluate design: %v", err)
			}
			_, err = codegen.Generate("example.com/app/gen", []eval.Root{goaexpr.Root, root}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `tool "t" of toolset "ts" bound to method "M" of service "svc"`) {
				t.Errorf("Generate error = %v, want %q", err, c.want)
			}
		})
	}
}
