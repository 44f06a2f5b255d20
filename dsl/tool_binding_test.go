package dsl_test

import (
	"slices"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/tools"
)

// dataService declares service "data_service" with method "get" (payload:
// required session_id and query) and an agent whose inline toolset
// declares tool "get_data" with fn.
func dataService(fn func()) func() {
	return func() {
		Service("data_service", func() {
			Method("get", func() {
				Payload(func() {
					Attribute("session_id", String)
					Attribute("query", String)
					Required("session_id", "query")
				})
				Result(func() { Attribute("data", ArrayOf(String)) })
			})
			Agent("reader", "Read data.", func() {
				Use("data", func() { Tool("get_data", "Get data for the current session", fn) })
			})
		})
	}
}

func TestBindToEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		dataService(func() {
			Args(func() {
				Attribute("session_id", String, "Current session ID")
				Attribute("query", String, "Data query")
				Required("session_id", "query")
			})
			BindTo("get")
			Inject("session_id")
		})()
		Toolset("shared", func() {
			Tool("get", "Get data", func() { BindTo("data_service", "get"); Inject("session_id") })
		})
	})
	inline := root.Agents[0].Uses[0].Inline.Tool("get_data")
	if b := inline.Binding; b == nil || b.ServiceName != "" || b.MethodName != "get" || b.Service.Name != "data_service" || inline.BoundMethod().Name != "get" {
		t.Fatalf("BindTo(method) = %+v", b)
	}
	shared := root.Toolset("shared").Tool("get")
	if b := shared.Binding; b.ServiceName != "data_service" || shared.BoundMethod() == nil {
		t.Fatalf("BindTo(service, method) = %+v", b)
	}
	if got := shared.InjectedFields(); len(got) != 1 || got[0].Name != "session_id" || got[0].Source != tools.InjectMeta || got[0].Meta != tools.MetaSessionID {
		t.Fatalf("a bound tool without Args injects into the method payload: %+v", got)
	}
}

func TestBindToRules(t *testing.T) {
	t.Run("the service exists", func(t *testing.T) {
		wantError(t, dataService(func() { BindTo("nope", "get") }), `BindTo: service "nope" is not declared in the design (services: data_service)`)
	})
	t.Run("the method exists", func(t *testing.T) {
		wantError(t, dataService(func() { BindTo("Find") }), `BindTo: service "data_service" has no method "Find" (its methods: get)`, "[tool_binding_test.go:")
	})
	t.Run("a top-level toolset names the service", func(t *testing.T) {
		wantError(t, oneTool(func() { BindTo("get") }), `BindTo: "get": toolset "records" is declared outside any service: name the service`)
	})
	t.Run("one or two names", func(t *testing.T) {
		wantError(t, oneTool(func() { BindTo("a", "b", "c") }), `BindTo: want BindTo("Method") or BindTo("Service", "Method"), got 3 names`)
		wantError(t, oneTool(func() { BindTo("", "get") }), "BindTo: a name is empty")
	})
	t.Run("one binding per tool", func(t *testing.T) {
		wantError(t, dataService(func() { BindTo("get"); BindTo("get") }), `BindTo: the tool is already bound to "get"`)
	})
}

func TestInjectEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		Toolset("households", func() {
			Tool("lookup_household", "Lookup scoped to a household", func() {
				Args(func() {
					Attribute("household_id", String, "Household to scope the search to.", func() { Pattern("^[a-z0-9-]+$") })
					Attribute("sessionId", String)
					Attribute("query", String, "Search query.")
					Required("household_id", "sessionId", "query")
				})
				Inject("household_id", "sessionId")
			})
			Tool("by_tenant", "Lookup scoped to a tenant", func() {
				Args(func() {
					Attribute("tenant", String)
					Attribute("household_id", String)
					Required("tenant", "household_id")
				})
				Inject("tenant", "household_id")
			})
		})
	})
	ts := root.Toolset("households")
	lookup := ts.Tool("lookup_household")
	got := lookup.InjectedFields()
	if len(got) != 2 || got[0].Name != "household_id" || got[0].Source != tools.InjectLabel ||
		got[1].Name != "sessionId" || got[1].Source != tools.InjectMeta || got[1].Meta != tools.MetaSessionID {
		t.Fatalf("injected fields = %+v", got)
	}
	if got := lookup.RequiredLabels(); !slices.Equal(got, []string{"household_id"}) {
		t.Fatalf("tool labels = %v", got)
	}
	if got := ts.RequiredLabels(); !slices.Equal(got, []string{"household_id", "tenant"}) {
		t.Fatalf("toolset labels are derived, sorted, without repeats: %v", got)
	}
}

func TestInjectRules(t *testing.T) {
	args := func(fn func()) func() {
		return oneTool(func() {
			Args(func() {
				Attribute("session_id", String)
				Attribute("count", Int)
				Attribute("note", String)
				Required("session_id", "count")
			})
			fn()
		})
	}
	t.Run("a field of Args", func(t *testing.T) {
		wantError(t, args(func() { Inject("tenant") }), `Inject: "tenant" is not a field of Args: declare it as a required String`)
	})
	t.Run("a required field", func(t *testing.T) {
		wantError(t, args(func() { Inject("note") }), `Inject: "note" must be required in Args`)
	})
	t.Run("a String field", func(t *testing.T) {
		wantError(t, args(func() { Inject("count") }), `Inject: "count" must be a String field of Args, not int`)
	})
	t.Run("a payload to inject into", func(t *testing.T) {
		wantError(t, oneTool(func() { Inject("session_id") }), "Inject: session_id: the tool has no payload to inject into")
	})
	t.Run("label-backed fields are not on bound tools", func(t *testing.T) {
		wantError(t, dataService(func() {
			Args(func() {
				Attribute("session_id", String)
				Attribute("query", String)
				Required("session_id", "query")
			})
			BindTo("get")
			Inject("query")
		}), `Inject: "query" is label-backed (run label "query") and the tool is bound with BindTo`, "carries no run labels")
	})
	t.Run("the bound method's payload declares the field too", func(t *testing.T) {
		wantError(t, dataService(func() {
			Args(func() {
				Attribute("turn_id", String)
				Required("turn_id")
			})
			BindTo("get")
			Inject("turn_id")
		}), `Inject: "turn_id" is not a field of the payload of method "get"`)
	})
	t.Run("the cursor is not injected", func(t *testing.T) {
		wantError(t, args(func() { BoundedResult(func() { Cursor("session_id") }); Inject("session_id") }), `Inject: "session_id" is also the BoundedResult cursor`)
	})
	t.Run("names are given once", func(t *testing.T) {
		wantError(t, args(func() { Inject("session_id"); Inject("session_id") }), `Inject: "session_id" is injected twice`, "tool_binding_test.go:")
		wantError(t, args(func() { Inject("") }), "Inject: a field name is empty")
		wantError(t, args(func() { Inject() }), "Inject: name at least one field")
	})
}
