package completion_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/completion"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
)

// A completion declared by hand, as generated code declares one, run
// against a scripted model: the first answer meets the schema, the second
// does not.
func ExampleCompletion_Complete() {
	type verdict struct {
		Approved bool   `json:"approved"`
		Reason   string `json:"reason"`
	}
	review := completion.New(completion.Definition{
		Name:        "review_verdict",
		Description: "Whether the change is approved, and why.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved","reason"],"additionalProperties":false}`),
	}, func(raw []byte) (verdict, error) {
		var v verdict
		err := json.Unmarshal(raw, &v)
		return v, err
	})
	client := scripted.New(
		scripted.Reply(`{"approved":true,"reason":"tests cover the fix"}`),
		scripted.Reply(`{"approved":"yes"}`),
	)
	req := &model.Request{Messages: []model.Message{model.UserMessage("Review this change.")}}

	v, err := review.Complete(context.Background(), client, req)
	fmt.Println(v.Approved, v.Reason, err)

	_, err = review.Complete(context.Background(), client, req)
	var ce *planner.OutputContractError
	fmt.Println(errors.As(err, &ce), ce.Recoverable())
	fmt.Println(err)
	// Output:
	// true tests cover the fix <nil>
	// true false
	// planner: completion "review_verdict": the model's answer breaks its output contract:
	//   approved: must be a boolean (got string)
	//   reason: is required
}
