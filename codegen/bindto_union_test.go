package codegen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// bindToUnionDesign declares a method whose payload holds a union (OneOf)
// at the top level and inside the elements of an array, and whose result
// holds one, with a tool bound to it declaring the same unions.
func bindToUnionDesign() {
	var Card = Type("Card", func() {
		Attribute("number", String)
		Required("number")
	})
	var Wire = Type("Wire", func() {
		Attribute("iban", String)
		Attribute("memo", String)
		Required("iban")
	})
	method := func() {
		OneOf("method", func() {
			Attribute("card", Card)
			Attribute("wire", Wire)
			Attribute("cash", String)
		})
	}
	var Leg = Type("Leg", func() {
		Attribute("label", String)
		OneOf("via", func() {
			Attribute("card", Card)
			Attribute("code", String)
		})
		Required("label")
	})
	Service("pay", func() {
		Method("Pay", func() {
			Payload(func() {
				Attribute("amount", Float64)
				method()
				Attribute("legs", ArrayOf(Leg))
				Required("amount")
			})
			Result(func() {
				Attribute("receipt", String)
				method()
				Required("receipt")
			})
		})
	})
	Toolset("billing", func() {
		Tool("pay", "Pay.", func() {
			Args(func() {
				Attribute("amount", Float64)
				method()
				Attribute("legs", ArrayOf(Leg))
				Required("amount")
			})
			Return(func() {
				Attribute("receipt", String)
				method()
				Required("receipt")
			})
			BindTo("pay", "Pay")
		})
	})
}

// TestBindToUnionBuilds builds the adapters of bindToUnionDesign and runs
// a program round-tripping unions: the branch the model sets is the branch
// the method sees, an unset union stays unset, the method's union comes
// back in the tool's result.
func TestBindToUnionBuilds(t *testing.T) {
	svc, ours := generateWithServices(t, bindToUnionDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "bindtounioncheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, append(svc, ours...), string(main)); !strings.HasPrefix(out, "ok") {
		t.Errorf("check program printed %q", out)
	}
}
