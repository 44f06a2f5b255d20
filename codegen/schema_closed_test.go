package codegen_test

import (
	"encoding/json"
	"errors"
	"testing"

	. "goa.design/goa/v3/dsl"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/codegen"
	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/dsl/dsltest"
	"github.com/quiver-go/quiver/tools"
)

// ordersDesign declares toolset "orders": "create" takes a user type, an
// inline object, an array of the user type, two maps and an injected
// field, and returns the same user type; "annotate" is "create"'s payload
// opened with OpenArgs; "ping" and "wave" take no arguments, "wave"
// opened.
func ordersDesign() {
	var Address = Type("Address", func() {
		Attribute("street", String)
		Required("street")
	})
	args := func() {
		Attribute("order_id", String)
		Attribute("address", Address)
		Attribute("shipping", func() {
			Attribute("carrier", String)
		})
		Attribute("stops", ArrayOf(Address))
		Attribute("labels", MapOf(String, String))
		Attribute("extra", MapOf(String, Any))
		Attribute("session_id", String)
		Required("order_id", "session_id")
	}
	Toolset("orders", func() {
		Tool("create", "Create an order.", func() {
			Args(args)
			Return(func() {
				Attribute("address", Address)
				Attribute("id", String)
			})
			Inject("session_id")
		})
		Tool("annotate", "Annotate an order with free-form notes.", func() {
			Args(args)
			Inject("session_id")
			OpenArgs()
		})
		Tool("ping", "Check the service.", func() {})
		Tool("wave", "Wave with anything.", func() { OpenArgs() })
	})
}

// ordersSpecs builds the specs of ordersDesign's toolset, by tool name.
func ordersSpecs(t *testing.T) map[string]*codegen.ToolData {
	t.Helper()
	root, err := dsltest.Run(ordersDesign)
	if err != nil {
		t.Fatalf("evaluate design: %v", err)
	}
	tds, err := codegen.BuildToolset(goaexpr.Root.API, root.Toolset("orders"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*codegen.ToolData{}
	for _, td := range tds {
		out[td.Expr.Name] = td
	}
	return out
}

// schemaNode is the part of a JSON Schema the tests look at.
type schemaNode struct {
	Properties           map[string]*schemaNode `json:"properties"`
	Items                *schemaNode            `json:"items"`
	Defs                 map[string]*schemaNode `json:"$defs"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
}

// parseSchema decodes raw, failing the test on error.
func parseSchema(t *testing.T, raw json.RawMessage) *schemaNode {
	t.Helper()
	var s schemaNode
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	return &s
}

// wantAdditional fails unless node's additionalProperties is want
// (compact JSON; "" for absent).
func wantAdditional(t *testing.T, what string, node *schemaNode, want string) {
	t.Helper()
	if node == nil {
		t.Fatalf("%s: no such schema", what)
	}
	if got := string(node.AdditionalProperties); got != want {
		t.Errorf("%s: additionalProperties = %q, want %q", what, got, want)
	}
}

func TestPayloadSchemasAreClosed(t *testing.T) {
	create := ordersSpecs(t)["create"]
	for name, raw := range map[string]json.RawMessage{"model-facing": create.Spec.Payload.Schema, "full": create.FullSchema} {
		s := parseSchema(t, raw)
		wantAdditional(t, name+" root", s, "false")
		wantAdditional(t, name+" user type Address", s.Defs["Address"], "false")
		wantAdditional(t, name+" inline object", s.Properties["shipping"], "false")
		wantAdditional(t, name+" MapOf(String, String)", s.Properties["labels"], `{"type":"string"}`)
		wantAdditional(t, name+" MapOf(String, Any)", s.Properties["extra"], "true")
	}
	if _, ok := parseSchema(t, create.FullSchema).Properties["session_id"]; !ok {
		t.Error("the full schema lost its injected field")
	}
	if _, ok := parseSchema(t, create.Spec.Payload.Schema).Properties["session_id"]; ok {
		t.Error("the model-facing schema shows the injected field")
	}

	payload := create.Spec.Payload
	for _, bad := range []string{
		`{"order_id":"o1","ORDER_ID":"o2"}`,
		`{"order_id":"o1","ſession_id":"forged"}`,
		`{"order_id":"o1","session_id":"forged"}`,
		`{"order_id":"o1","address":{"street":"Main","zip":"1000"}}`,
		`{"order_id":"o1","shipping":{"carrier":"post","speed":"fast"}}`,
		`{"order_id":"o1","stops":[{"street":"Main","zip":"1000"}]}`,
	} {
		if err := payload.Validate([]byte(bad)); !errors.Is(err, tools.ErrSchemaViolation) {
			t.Errorf("payload %s: err = %v, want a schema violation", bad, err)
		}
	}
	good := `{"order_id":"o1","address":{"street":"Main"},"shipping":{"carrier":"post"},"stops":[{"street":"Side"}],"labels":{"any":"v"},"extra":{"k":[1]}}`
	if err := payload.Validate([]byte(good)); err != nil {
		t.Errorf("payload %s: %v", good, err)
	}
}

func TestResultSchemasStayOpen(t *testing.T) {
	create := ordersSpecs(t)["create"]
	s := parseSchema(t, create.Spec.Result.Schema)
	wantAdditional(t, "result root", s, "")
	wantAdditional(t, "result user type Address", s.Defs["Address"], "")
	if err := create.Spec.Result.Validate([]byte(`{"id":"o1","note":"x","address":{"street":"Main","zip":"1000"}}`)); err != nil {
		t.Errorf("a result with undeclared properties: %v", err)
	}
}

func TestOpenArgsOpensTheRootOnly(t *testing.T) {
	annotate := ordersSpecs(t)["annotate"]
	for name, raw := range map[string]json.RawMessage{"model-facing": annotate.Spec.Payload.Schema, "full": annotate.FullSchema} {
		s := parseSchema(t, raw)
		wantAdditional(t, name+" root", s, "true")
		wantAdditional(t, name+" user type Address", s.Defs["Address"], "false")
		wantAdditional(t, name+" inline object", s.Properties["shipping"], "false")
		wantAdditional(t, name+" MapOf(String, String)", s.Properties["labels"], `{"type":"string"}`)
	}
	payload := annotate.Spec.Payload
	if err := payload.Validate([]byte(`{"order_id":"o1","note":"rush"}`)); err != nil {
		t.Errorf("an undeclared root property: %v", err)
	}
	if err := payload.Validate([]byte(`{"order_id":"o1","address":{"street":"Main","zip":"1000"}}`)); !errors.Is(err, tools.ErrSchemaViolation) {
		t.Errorf("an undeclared nested property: err = %v, want a schema violation", err)
	}
}

func TestPayloadWithoutArgs(t *testing.T) {
	specs := ordersSpecs(t)
	for name, want := range map[string]string{"ping": "false", "wave": "true"} {
		td := specs[name]
		wantAdditional(t, name, parseSchema(t, td.Spec.Payload.Schema), want)
		wantAdditional(t, name+" full", parseSchema(t, td.FullSchema), want)
		err := td.Spec.Payload.Validate([]byte(`{"x":1}`))
		if accepted := err == nil; accepted != (want == "true") {
			t.Errorf("%s: payload {\"x\":1}: err = %v", name, err)
		}
	}
}
