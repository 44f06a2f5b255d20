package codegen_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/codegen"
	. "github.com/quiver-go/quiver/dsl"
)

// registriesDesign is the design of the registry tests, after seed 000's
// "Consommer un catalogue évolutif": agent reader consumes a compiled
// toolset, the registry toolset "records" pinned to 1.2.3 and, deferred, a
// partner registry's toolset under another name; agent generalist
// consumes the whole company registry, deferred. Service assistant
// publishes the top-level toolset notes (re-described and re-tagged by its
// Export) to both registries, and an inline toolset to one.
func registriesDesign() {
	key := APIKeySecurity("company_key")
	company := Registry("company", func() {
		URL("https://registry.example")
		Security(key)
	})
	partners := Registry("partners", func() { URL("https://partners.example") })
	records := Toolset(FromRegistry(company, "records"), func() { Version("1.2.3") })
	search := Toolset("partner-search", FromRegistry(partners, "web-search"))
	notes := Toolset("notes", func() {
		Description("Keep notes about the records.")
		Tags("notes")
		Tool("addNote", "Add a note.", func() {
			Args(func() {
				Attribute("text", String, "The note")
				Required("text")
			})
			Return(func() {
				Attribute("id", String, "The note's id")
				Required("id")
			})
		})
	})
	Service("assistant", func() {
		Agent("reader", "Read records.", func() {
			Use(notes, func() { Deferred("addNote") })
			Use(records)
			Use(search, func() { Deferred() })
		})
		Agent("generalist", "Use the company catalog.", func() {
			Use(company, func() { Deferred() })
		})
		Export(notes, func() {
			Description("Notes shared with every agent of the company.")
			Tags("shared", "notes")
			PublishTo(company)
			PublishTo(partners)
		})
		Export("audit", func() {
			Tool("audit", "Audit a record.", func() {
				Args(func() {
					Attribute("record", String, "The record's id")
					Required("record")
				})
			})
			PublishTo(company)
		})
	})
}

// registriesFiles are the files registriesDesign generates, in order.
var registriesFiles = []string{
	"gen/toolsets/notes/types.go",
	"gen/toolsets/notes/specs.go",
	"gen/toolsets/notes/tool_schemas.json",
	"gen/toolsets/notes/publish.go",
	"gen/assistant/exports/audit/types.go",
	"gen/assistant/exports/audit/specs.go",
	"gen/assistant/exports/audit/tool_schemas.json",
	"gen/assistant/exports/audit/publish.go",
	"gen/registries/company/client.go",
	"gen/registries/partners/client.go",
	"gen/agents/assistant/reader/agent.go",
	"gen/agents/assistant/reader/client.go",
	"gen/agents/assistant/generalist/agent.go",
	"gen/agents/assistant/generalist/client.go",
	"AGENTS_QUICKSTART.md",
}

func TestGoldenRegistries(t *testing.T) {
	files, warnings := generate(t, registriesDesign)
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none: registry sources and services' publications generate", warnings)
	}
	dir := t.TempDir()
	paths := render(t, dir, files)
	if !slices.Equal(paths, registriesFiles) {
		t.Fatalf("generated %v, want %v", paths, registriesFiles)
	}
	read := func(p string) string { return string(readFile(t, filepath.Join(dir, p))) }
	contains := func(file string, wants ...string) {
		t.Helper()
		got := read(file)
		for _, want := range wants {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q", file, want)
			}
		}
	}
	contains("gen/agents/assistant/reader/agent.go",
		"RegistryCompany = \"company\"",
		"RegistryPartners = \"partners\"",
		"Registries: []runtime.RegistryUse{\n\t\t\t{\n\t\t\t\tRegistry: RegistryCompany,\n\t\t\t\tToolset:  \"records\",\n\t\t\t\tVersion:  \"1.2.3\",\n\t\t\t},\n\t\t\t{\n\t\t\t\tRegistry: RegistryPartners,\n\t\t\t\tToolset:  \"web-search\",\n\t\t\t\tDeferAll: true,\n\t\t\t},\n\t\t},",
		"Uses: []runtime.ToolsetUse{\n\t\t\t{\n\t\t\t\tToolset:  ToolsetNotes,\n\t\t\t\tDeferred: []string{\"addNote\"},\n\t\t\t},\n\t\t},",
		"It lists compiled tools only",
		"rt.RegisterRegistry before the agent's first run",
	)
	contains("gen/agents/assistant/generalist/agent.go",
		"Registries: []runtime.RegistryUse{\n\t\t\t{\n\t\t\t\tRegistry: RegistryCompany,\n\t\t\t\tDeferAll: true,\n\t\t\t},\n\t\t},",
		"[]runtime.ToolsetUse{},",
	)
	contains("gen/toolsets/notes/publish.go",
		"func PublishToCompany(ctx context.Context, client *registry.Client, revision string, exec toolcall.Executor) error {\n\treturn registry.Serve(ctx, client, CompanyRegistration(revision), exec)\n}",
		"func CompanyRegistration(revision string) registry.Registration {",
		"func PublishToPartners(ctx context.Context, client *registry.Client, revision string, exec toolcall.Executor) error {",
		`decl.Description = "Notes shared with every agent of the company."`,
		`decl.Tags = []string{"notes", "shared"}`,
		"an agent's export runs the agent\n// as the tool",
	)
	audit := read("gen/assistant/exports/audit/publish.go")
	if !strings.Contains(audit, "func PublishToCompany(") || strings.Contains(audit, "PublishToPartners") || strings.Contains(audit, "decl.Description") {
		t.Errorf("the audit export's publish.go:\n%s", audit)
	}
	for _, p := range paths {
		if strings.Contains(p, "records") || strings.Contains(p, "search") {
			t.Errorf("generated %s: a registry reference has no package", p)
		}
	}
	compareGolden(t, dir, slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		return strings.HasSuffix(p, "types.go") || strings.HasSuffix(p, "specs.go") || strings.HasSuffix(p, ".json")
	}), func(p string) string {
		return filepath.Join("testdata", "registries", filepath.FromSlash(p)+".golden")
	})
}

// TestPublishNamesAreReserved checks that a tool named like a publication
// helper gets another Go name, and that one registry receives a toolset
// from one export only.
func TestPublishNamesAreReserved(t *testing.T) {
	files, _ := generate(t, func() {
		corp := Registry("corp", func() { URL("https://registry.example") })
		ts := Toolset("tools", func() {
			Tool("publishToCorp", "A tool named like the helper.")
			Tool("corpRegistration", "Another.")
		})
		Service("svc", func() { Export(ts, func() { PublishTo(corp) }) })
	})
	dir := t.TempDir()
	render(t, dir, files)
	specs := string(readFile(t, filepath.Join(dir, "gen/toolsets/tools/specs.go")))
	for _, want := range []string{"PublishToCorp2 tools.Ident", "CorpRegistration2 tools.Ident", "func DecodePublishToCorp2("} {
		if !strings.Contains(specs, want) {
			t.Errorf("specs.go lacks %q: the tools must leave the helpers' names to them", want)
		}
	}
}

func TestPublishingFromTwoExportsFails(t *testing.T) {
	design := func() {
		corp := Registry("corp", func() { URL("https://registry.example") })
		ts := Toolset("tools", func() { Tool("a", "A tool.") })
		Service("one", func() { Export(ts, func() { PublishTo(corp) }) })
		Service("two", func() { Export(ts, func() { PublishTo(corp) }) })
	}
	root := mustRoot(t, design)
	saved := codegen.Warnings
	codegen.Warnings = func(string) {}
	defer func() { codegen.Warnings = saved }()
	_, err := codegen.Generate("example.com/app/gen", []eval.Root{goaexpr.Root, root}, nil)
	if err == nil || !strings.Contains(err.Error(), `toolset "tools" is published to registry "corp" by the export of toolset "tools" by service "one" and by the export of toolset "tools" by service "two"`) {
		t.Errorf("Generate = %v", err)
	}
}

// TestGeneratedRegistriesBuild builds and vets the generated packages,
// then runs a program that checks both agents' definitions and
// registrations, and serves the published toolsets through a real
// registry in its process with the generated PublishTo helpers, calling
// their tools.
func TestGeneratedRegistriesBuild(t *testing.T) {
	files, _ := generate(t, registriesDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "registriescheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, files, string(main)); out != "ok\n" {
		t.Errorf("check program printed %q", out)
	}
}

// roundTripDesign publishes a service's toolset to a registry and has an
// agent consume it from there, through a FromRegistry toolset.
func roundTripDesign() {
	company := Registry("company", func() { URL("https://registry.example") })
	notes := Toolset("notes", func() {
		Tool("addNote", "Add a note.", func() {
			Args(func() {
				Attribute("text", String, "The note")
				Required("text")
			})
			Return(func() {
				Attribute("id", String, "The note's id")
				Required("id")
			})
		})
	})
	shared := Toolset("company-notes", FromRegistry(company, "notes"))
	Service("notes", func() { Export(notes, func() { PublishTo(company) }) })
	Service("assistant", func() {
		Agent("consumer", "Adds notes through the company registry.", func() { Use(shared) })
	})
}

// TestGeneratedRegistryRoundTrip builds the generated packages of
// roundTripDesign and runs a program that serves the toolset with its
// generated PublishToCompany on a real registry in its process, and runs
// the generated consumer agent, whose scripted model calls the tool
// through the registry.
func TestGeneratedRegistryRoundTrip(t *testing.T) {
	files, warnings := generate(t, roundTripDesign)
	if len(warnings) != 0 {
		t.Errorf("warnings = %q", warnings)
	}
	main, err := os.ReadFile(filepath.Join("testdata", "roundtripcheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, files, string(main)); out != "ok done\n" {
		t.Errorf("check program printed %q", out)
	}
}
