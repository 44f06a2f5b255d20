package killdesk

import (
	"context"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

// Scenarios: the user message of a run says which one it plays.
const (
	// ScenarioTool charges an order (an idempotent tool), then answers.
	ScenarioTool = "charge A-1"
	// ScenarioPlan looks an order up, then answers in a second step.
	ScenarioPlan = "look up A-1"
	// ScenarioChild asks the clerk agent (a child run), then answers.
	ScenarioChild = "ask the clerk about A-1"
	// ScenarioConfirm cancels an order, behind a confirmation.
	ScenarioConfirm = "cancel A-1"
)

// deskModel answers from the transcript alone: each request is played by
// a scripted model of one step, chosen by the turn's user message and the
// tool results that follow it.
type deskModel struct{ cfg *Config }

var _ model.Client = deskModel{}

// step is the answer to req.
func (m deskModel) step(ctx context.Context, req *model.Request) (scripted.Step, error) {
	user, results := lastTurn(req.Messages)
	switch {
	case strings.Contains(user, "clerk:") && results == 0: // the child run
		return scripted.Call("getOrder", `{"order_id":"A-1"}`), nil
	case user == ScenarioTool && results == 0:
		return scripted.Call("charge", `{"order_id":"A-1"}`), nil
	case user == ScenarioPlan && results == 0:
		return scripted.Call("getOrder", `{"order_id":"A-1"}`), nil
	case user == ScenarioPlan && results == 1:
		if err := m.cfg.blockAt(ctx, BlockPlan); err != nil {
			return scripted.Step{}, err
		}
	case user == ScenarioChild && results == 0:
		return scripted.Call("ask", `{"question":"clerk: where is A-1?"}`), nil
	case user == ScenarioConfirm && results == 0:
		return scripted.Call("cancelOrder", `{"order_id":"A-1"}`), nil
	}
	return scripted.Reply("done: " + user), nil
}

// Complete implements model.Client.
func (m deskModel) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	s, err := m.step(ctx, req)
	if err != nil {
		return nil, err
	}
	return scripted.New(s).Complete(ctx, req)
}

// Stream implements model.Client.
func (m deskModel) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	s, err := m.step(ctx, req)
	if err != nil {
		return nil, err
	}
	return scripted.New(s).Stream(ctx, req)
}

// lastTurn returns the text of the last user message and how many tool
// results follow it.
func lastTurn(msgs []model.Message) (string, int) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != model.RoleUser || msgs[i].TextContent() == "" {
			continue
		}
		results := 0
		for _, m := range msgs[i:] {
			for _, p := range m.Parts {
				if p.ToolResult != nil {
					results++
				}
			}
		}
		return msgs[i].TextContent(), results
	}
	return "", 0
}
