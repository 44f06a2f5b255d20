package tools_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/tools"
)

// A model's arguments are parsed once into their canonical form; a key
// that only differs from a declared one by case, a duplicate key or an
// injected field is refused with a message the model can act on.
func ExampleCanonicalPayload() {
	spec := tools.ToolSpec{
		Name:    "orders.cancelOrder",
		Payload: tools.MustTypeSpec("CancelOrder", json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"},"reason":{"type":"string"}}}`)),
		Inject:  []tools.InjectedField{tools.ClassifyInjected("user_id")},
	}
	canonical, _ := tools.CanonicalPayload(spec, []byte(` {"reason": "duplicate", "order_id": "A\u002d1"} `), tools.PayloadLimits{})
	fmt.Println(string(canonical))
	fmt.Println(tools.PayloadDigest(canonical)[:15] + "…")

	_, err := tools.CanonicalPayload(spec, []byte(`{"order_id":"A-1","ORDER_ID":"VIP-9","uſer_id":"mallory"}`), tools.PayloadLimits{})
	var pe *tools.PayloadError
	if errors.As(err, &pe) {
		for _, p := range pe.Problems {
			fmt.Println(p.Kind)
		}
	}
	// Output:
	// {"order_id":"A-1","reason":"duplicate"}
	// sha256:84c467a1…
	// key_variant
	// injected_field
}
