package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// propOrder is what the executor of ws.cancelOrder decodes.
type propOrder struct {
	OrderID string `json:"order_id"`
	Reason  string `json:"reason"`
	UserID  string `json:"user_id"`
}

// propCancelSpec is a confirmation-gated tool whose prompt renders two
// model fields, with a third field injected from a run label.
func propCancelSpec(t *testing.T) tools.ToolSpec {
	return newSpec(t, "cancelOrder",
		withPayload(t, `{"type":"object","properties":{"order_id":{"type":"string"},"reason":{"type":"string"}},"required":["order_id","reason"]}`),
		func(s *tools.ToolSpec) {
			s.Confirmation = &tools.ConfirmationSpec{PromptTemplate: `Cancel order {{ .order_id }} ({{ .reason }})?`}
			s.Inject = []tools.InjectedField{tools.ClassifyInjected("user_id")}
			s.RequiredLabels = []string{"user_id"}
		})
}

// FuzzPromptShowsWhatRuns: for any payload a model can send, either the
// call is refused, or the confirmation prompt renders exactly the values
// the executor decodes after approval, with the injected field from the
// run label. A call that needs confirmation never runs without one.
func FuzzPromptShowsWhatRuns(f *testing.F) {
	for _, s := range []string{
		`{"order_id":"A-1","reason":"dup"}`,
		`{"order_id":"A-1","ORDER_ID":"VIP-999","reason":"dup"}`,
		`{"order_id":"A-1","order_id":"VIP-999","reason":"dup"}`,
		`{"order_id":"A-1","reason":"dup","user_id":"mallory"}`,
		`{"order_id":"A-1","reason":"dup","uſer_id":"mallory"}`,
		`{"order_id":"A-1","reason":"dup","USER_ID":"mallory"}`,
		`{"order_id":"A\u002d1","reason":"d\"up"}`,
		`{"Order_id":"VIP-999","order_id":"A-1","reason":"x"}`,
		`{"order_id":"A-1","reason":"x","extra":{"order_id":"VIP-999"}}`,
		`{"order_id":"A-1","reason":"x"} {"order_id":"VIP-999"}`,
		"{\"order_id\":\"A-1\xff\",\"reason\":\"x\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		var decoded []propOrder
		fx, _ := hostileFixture(t, RunPolicy{}, []fixtureTool{{spec: propCancelSpec(t), handler: func(_ context.Context, call *ToolCall) (*planner.ToolResult, error) {
			var p propOrder
			if err := call.Decode(&p); err != nil {
				return nil, err
			}
			decoded = append(decoded, p)
			return &planner.ToolResult{Result: json.RawMessage(`{}`)}, nil
		}}}, []model.ToolCall{{ID: "c1", Name: "cancelOrder", Payload: json.RawMessage(payload)}})
		out := fx.run("cancel", WithLabels(map[string]string{"user_id": "u-7"}))
		if out.Suspension == nil {
			if len(decoded) != 0 {
				t.Fatalf("%q ran without a confirmation: %+v", payload, decoded)
			}
			return // refused
		}
		item := out.Suspension.Pending[0]
		fx.cont(out.RunID, item.Approve())
		if len(decoded) == 0 {
			return // refused by the schema after approval: nothing ran
		}
		d := decoded[0]
		if want := fmt.Sprintf("Cancel order %s (%s)?", d.OrderID, d.Reason); item.Prompt != want {
			t.Fatalf("%q: the prompt said %q, the executor ran %+v", payload, item.Prompt, d)
		}
		if d.UserID != "u-7" {
			t.Fatalf("%q: user_id %q, want the run label's", payload, d.UserID)
		}
	})
}
