package dsl_test

// Seed 000 (tool search and dynamic catalogs): the Deferred and registry
// consumption snippets, the rules the seed states as accepted forms, and
// one subtest per form it rejects.
//
// Out of scope, being goa-ai runtime Go code rather than design: the
// "Connexion et publication" snippet (rt.RegisterRegistry,
// RegisterReaderAgent, NewClient). The migration snippet's "before" form,
// Use(Records, Deferred), no longer compiles by design; the test asserts
// Deferred's type instead.

import (
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/expr"
)

// seedRecords is the seed's compiled Records toolset: lookup, search and
// analyze.
func seedRecords() *expr.ToolsetExpr {
	return Toolset("records", func() {
		Tool("lookup", "Look up a record by id")
		Tool("search", "Search records by text")
		Tool("analyze", "Analyze records")
	})
}

// seedAssistant declares agent "assistant" of service "assistant" whose DSL
// is uses.
func seedAssistant(uses func()) {
	Service("assistant", func() { Agent("assistant", "Find and analyze records.", uses) })
}

// seedDeferred returns the tools the first use of the first agent defers.
func seedDeferred(root *expr.RootExpr) []string {
	return root.Agents[0].Uses[0].DeferredTools()
}

// seedCompany is the seed's company registry.
func seedCompany() *expr.RegistryExpr {
	return Registry("company", func() { URL("https://registry.example") })
}

func TestSeed000Snippets(t *testing.T) {
	t.Run("000/Deferred named", func(t *testing.T) {
		root := mustRun(t, func() {
			Records := seedRecords()
			Service("assistant", func() {
				Agent("assistant", "Find and analyze records.", func() {
					Use(Records, func() {
						Deferred("search", "analyze")
					})
				})
			})
		})
		if got := seedDeferred(root); len(got) != 2 || got[0] != "search" || got[1] != "analyze" {
			t.Fatalf("deferred = %v, want [search analyze] (lookup advertised at once)", got)
		}
	})
	t.Run("000/Registry consumption", func(t *testing.T) {
		mustRun(t, func() {
			Company := Registry("company", func() {
				URL("https://registry.example")
			})
			Records := Toolset(FromRegistry(Company, "records"))
			Service("assistant", func() {
				Agent("reader", "Read records.", func() {
					Use(Records, func() { Deferred() })
				})
				Agent("generalist", "Use the company catalog.", func() {
					Use(Company, func() { Deferred() })
				})
			})
		})
	})
	t.Run("000/Registry consumption/without Deferred", func(t *testing.T) {
		// "Retirer Deferred() annonce immédiatement ce même catalogue."
		mustRun(t, func() {
			Company := seedCompany()
			Records := Toolset(FromRegistry(Company, "records"))
			Service("assistant", func() {
				Agent("reader", "Read records.", func() { Use(Records) })
				Agent("generalist", "Use the company catalog.", func() { Use(Company) })
			})
		})
	})
	t.Run("000/Registry consumption/Version", func(t *testing.T) {
		mustRun(t, func() {
			Records := Toolset(FromRegistry(seedCompany(), "records"), func() { Version("1.2.3") })
			seedAssistant(func() { Use(Records, func() { Deferred() }) })
		})
	})
	t.Run("000/Migration", func(t *testing.T) {
		// Avant: Use(Records, Deferred) — no longer compiles: Deferred is
		// func(...string).
		var _ func(...string) = Deferred
		// Après
		root := mustRun(t, func() {
			Records := seedRecords()
			seedAssistant(func() { Use(Records, func() { Deferred() }) })
		})
		if got := seedDeferred(root); len(got) != 3 {
			t.Fatalf("deferred = %v, want every tool", got)
		}
	})
}

func TestSeed000AcceptedForms(t *testing.T) {
	t.Run("000/Deferred() repeated", func(t *testing.T) {
		root := mustRun(t, func() {
			Records := seedRecords()
			seedAssistant(func() { Use(Records, func() { Deferred(); Deferred() }) })
		})
		if got := seedDeferred(root); len(got) != 3 {
			t.Fatalf("deferred = %v", got)
		}
	})
	t.Run("000/named declarations combine", func(t *testing.T) {
		root := mustRun(t, func() {
			Records := seedRecords()
			seedAssistant(func() { Use(Records, func() { Deferred("search"); Deferred("analyze") }) })
		})
		if got := seedDeferred(root); len(got) != 2 || got[0] != "search" || got[1] != "analyze" {
			t.Fatalf("deferred = %v", got)
		}
	})
	t.Run("000/Deferred belongs to the consumer", func(t *testing.T) {
		// Other consumers of the same toolset are unchanged.
		root := mustRun(t, func() {
			Records := seedRecords()
			Service("assistant", func() {
				Agent("a", "A", func() { Use(Records, func() { Deferred("search") }) })
				Agent("b", "B", func() { Use(Records) })
			})
		})
		if got := root.Agents[1].Uses[0].DeferredTools(); len(got) != 0 {
			t.Fatalf("agent b defers %v", got)
		}
	})
	t.Run("000/named Deferred of agent tools", func(t *testing.T) {
		mustRun(t, func() {
			Service("planning", func() {
				Agent("planner", "Plans", func() {
					Export("planning.tools", func() {
						Tool("create_plan", "Create a plan")
						Tool("revise_plan", "Revise a plan")
					})
				})
				Agent("orchestrator", "Orchestrates", func() {
					Use(AgentToolset("planning", "planner", "planning.tools"), func() { Deferred("revise_plan") })
				})
			})
		})
	})
	t.Run("000/named Deferred of external MCP tools with declared schemas", func(t *testing.T) {
		mustRun(t, func() {
			remote := Toolset("remote-search", FromExternalMCP("remote", "search"), func() {
				Tool("web_search", "Search the web", func() { Args(func() { Attribute("query", String) }) })
				Tool("fetch", "Fetch a page", func() { Args(func() { Attribute("url", String) }) })
			})
			seedAssistant(func() { Use(remote, func() { Deferred("fetch") }) })
		})
	})
	t.Run("000/named Deferred of Goa MCP tools", func(t *testing.T) {
		mustRun(t, func() {
			seedAssistantMCP()
			suite := Toolset(FromMCP("assistant", "assistant-mcp"))
			Service("orchestrator", func() {
				Agent("chat", "Chat", func() { Use(suite, func() { Deferred("search") }) })
			})
		})
	})
	t.Run("000/named Deferred of an inline toolset", func(t *testing.T) {
		mustRun(t, seedAgent(func() {
			Agent("chat", "Chat", func() {
				Use("helpers", func() {
					Tool("answer", "Answer a question")
					Tool("cite", "Cite a source")
					Deferred("cite")
				})
			})
		}))
	})
}

func TestSeed000RejectedForms(t *testing.T) {
	use := func(deferred func()) func() {
		return func() {
			Records := seedRecords()
			seedAssistant(func() { Use(Records, deferred) })
		}
	}
	t.Run("000/empty name", func(t *testing.T) {
		seedReject(t, use(func() { Deferred("") }), "Deferred: a tool name is empty")
		seedReject(t, use(func() { Deferred("search", " ") }), "Deferred: a tool name is empty")
	})
	t.Run("000/duplicate name", func(t *testing.T) {
		seedReject(t, use(func() { Deferred("search", "search") }), `Deferred: "search" is named twice`)
	})
	t.Run("000/duplicate name across declarations", func(t *testing.T) {
		seedReject(t, use(func() { Deferred("search"); Deferred("analyze", "search") }), `Deferred: "search" is named twice`)
	})
	t.Run("000/unknown name", func(t *testing.T) {
		seedReject(t, use(func() { Deferred("delete") }), `Deferred: toolset "records" has no tool "delete" (its tools: lookup, search, analyze)`)
	})
	t.Run("000/generated Go name", func(t *testing.T) {
		seedReject(t, use(func() { Deferred("Search") }), `Deferred: toolset "records" has no tool "Search"`)
	})
	t.Run("000/qualified name", func(t *testing.T) {
		seedReject(t, use(func() { Deferred("records.search") }), `Deferred: "records.search": use the tool's local name "search", not a qualified one`)
	})
	t.Run("000/unknown names of other kinds of toolsets", func(t *testing.T) {
		seedReject(t, func() {
			seedAssistantMCP()
			suite := Toolset(FromMCP("assistant", "assistant-mcp"))
			seedAssistant(func() { Use(suite, func() { Deferred("assistant-mcp.search") }) })
		}, `use the tool's local name "search", not a qualified one`)
		seedReject(t, func() {
			remote := Toolset("remote-search", FromExternalMCP("remote", "search"), func() {
				Tool("web_search", "Search the web")
			})
			seedAssistant(func() { Use(remote, func() { Deferred("fetch") }) })
		}, `Deferred: toolset "remote-search" has no tool "fetch"`)
		seedReject(t, func() {
			Service("planning", func() {
				Agent("planner", "Plans", func() { Export("planning.tools", func() { Tool("create_plan", "Create a plan") }) })
				Agent("orchestrator", "Orchestrates", func() {
					Use(AgentToolset("planning", "planner", "planning.tools"), func() { Deferred("delete_plan") })
				})
			})
		}, `Deferred: toolset "planning.tools" has no tool "delete_plan"`)
	})
	t.Run("000/Deferred() mixed with names", func(t *testing.T) {
		seedReject(t, use(func() { Deferred(); Deferred("search") }), "Deferred: Deferred() defers every tool of the use and cannot be combined with Deferred(names...) in the same Use")
		seedReject(t, use(func() { Deferred("search"); Deferred() }), "cannot be combined with Deferred(names...)")
	})
	t.Run("000/Deferred in a shared Toolset", func(t *testing.T) {
		seedReject(t, func() {
			Toolset("records", func() { Tool("search", "Search records"); Deferred("search") })
		}, "Deferred: must be used in a consumer's Use, never in a shared Toolset or an Export")
		seedReject(t, func() {
			Toolset("records", func() { Tool("search", "Search records", func() { Deferred() }) })
		}, "Deferred: must be used in a consumer's Use")
	})
	t.Run("000/Deferred in an Export", func(t *testing.T) {
		seedReject(t, func() {
			Records := seedRecords()
			seedAssistant(func() { Use(Records); Export(Records, func() { Deferred("search") }) })
		}, "Deferred: must be used in a consumer's Use, never in a shared Toolset or an Export")
		seedReject(t, func() {
			seedAssistant(func() { Export("planning.tools", func() { Tool("plan", "Plan"); Deferred() }) })
		}, "Deferred: must be used in a consumer's Use")
	})
	t.Run("000/named Deferred on a FromRegistry set", func(t *testing.T) {
		seedReject(t, func() {
			Records := Toolset(FromRegistry(seedCompany(), "records"))
			seedAssistant(func() { Use(Records, func() { Deferred("search") }) })
		}, `Deferred: toolset "records" of registry "company" resolves its tools at run time: defer them all with Deferred(), not Deferred(names...)`)
	})
	t.Run("000/named Deferred on a whole registry", func(t *testing.T) {
		seedReject(t, func() {
			Company := seedCompany()
			seedAssistant(func() { Use(Company, func() { Deferred("search") }) })
		}, `Deferred: registry "company" resolves its tools at run time`)
	})
	t.Run("000/duplicate sources", func(t *testing.T) {
		seedReject(t, func() {
			Company := seedCompany()
			a := Toolset("a", FromRegistry(Company, "records"))
			b := Toolset("b", FromRegistry(Company, "records"))
			seedAssistant(func() { Use(a); Use(b) })
		}, `Use: toolsets "a" and "b" are the same source`)
		seedReject(t, func() {
			Records := Toolset(FromRegistry(seedCompany(), "records"))
			seedAssistant(func() { Use(Records); Use(Records, func() { Deferred() }) })
		}, `toolset "records" is used twice`)
		seedReject(t, func() {
			Company := seedCompany()
			seedAssistant(func() { Use(Company); Use(Company) })
		}, `Use: registry "company" is used twice by the agent`)
	})
	t.Run("000/overlapping sources", func(t *testing.T) {
		seedReject(t, func() {
			Company := seedCompany()
			Records := Toolset(FromRegistry(Company, "records"))
			seedAssistant(func() { Use(Company, func() { Deferred() }); Use(Records) })
		}, `Use: toolset "records" overlaps registry "company", which the agent also uses whole`)
	})
	t.Run("000/inline tools on a registry reference", func(t *testing.T) {
		seedReject(t, func() {
			Toolset(FromRegistry(seedCompany(), "records"), func() { Tool("search", "Search records") })
		}, `Tool: toolset "records" is a reference to registry "company", whose provider owns the definitions: it cannot declare tools inline`)
		seedReject(t, func() {
			Company := seedCompany()
			seedAssistant(func() { Use(Company, func() { Tool("search", "Search records") }) })
		}, `Tool: "search": registry "company" resolves its tools at run time and its provider owns their definitions`)
		seedReject(t, func() {
			Records := Toolset(FromRegistry(seedCompany(), "records"))
			seedAssistant(func() { Use(Records, func() { Tool("search", "Search records", func() {}) }) })
		}, `Tool: "search": registry "company" resolves its tools at run time`)
	})
	t.Run("000/exporting a registry reference", func(t *testing.T) {
		seedReject(t, func() {
			Records := Toolset(FromRegistry(seedCompany(), "records"))
			seedAssistant(func() { Use(Records); Export(Records) })
		}, `Export: toolset "records" is a reference to registry "company": only its provider exports and publishes it`)
		seedReject(t, func() {
			Company := seedCompany()
			seedAssistant(func() { Use(Company); Export(Company) })
		}, "Export: want a Toolset or the name of an inline toolset")
	})
	t.Run("000/consumer-side Tags on a registry reference", func(t *testing.T) {
		seedReject(t, func() {
			Toolset(FromRegistry(seedCompany(), "records"), func() { Tags("data") })
		}, `Tags: toolset "records" is a reference to registry "company": tags belong to the provider`)
		seedReject(t, func() {
			Company := seedCompany()
			seedAssistant(func() { Use(Company, func() { Tags("data") }) })
		}, "Tags: must be used in a Tool, a Toolset or an Export")
	})
	t.Run("000/consumer-side PublishTo on a registry reference", func(t *testing.T) {
		seedReject(t, func() {
			Company := seedCompany()
			Toolset(FromRegistry(Company, "records"), func() { PublishTo(Company) })
		}, `PublishTo: toolset "records" is a reference to registry "company": only its provider publishes it`)
		seedReject(t, func() {
			Company := seedCompany()
			Records := Toolset(FromRegistry(Company, "records"))
			seedAssistant(func() { Use(Records, func() { PublishTo(Company) }) })
		}, "PublishTo: must be used in an Export")
	})
}
