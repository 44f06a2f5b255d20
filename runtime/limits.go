package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// DefaultMaxCallsPerResponse bounds the tool calls one model response may
// carry when [OutputLimits.MaxCallsPerResponse] is 0.
const DefaultMaxCallsPerResponse = 64

// OutputLimits bounds what one model response may ask of the runtime. A
// response beyond them is answered with invalid_payload failures the model
// reads and corrects (each costs a recovery turn, none a tool call); it
// never fails the run, and nothing beyond the limits is kept: the planning
// activity replaces the offending arguments with {} before its output is
// recorded. Zero fields take their defaults.
type OutputLimits struct {
	// MaxArgumentBytes bounds one call's arguments (default
	// [tools.DefaultMaxPayloadBytes], 1 MiB).
	MaxArgumentBytes int
	// MaxArgumentDepth bounds how deeply one call's arguments nest
	// (default [tools.DefaultMaxPayloadDepth], 64).
	MaxArgumentDepth int
	// MaxCallsPerResponse bounds the calls of one response (default
	// [DefaultMaxCallsPerResponse]); a response over it runs none of them.
	MaxCallsPerResponse int
}

func (l OutputLimits) validate() error {
	if l.MaxArgumentBytes < 0 || l.MaxArgumentDepth < 0 || l.MaxCallsPerResponse < 0 {
		return errors.New("ModelOutput limits must not be negative: use 0 for the defaults")
	}
	return nil
}

// payload returns the limits of one call's arguments.
func (l OutputLimits) payload() tools.PayloadLimits {
	return tools.PayloadLimits{MaxBytes: l.MaxArgumentBytes, MaxDepth: l.MaxArgumentDepth}.WithDefaults()
}

func (l OutputLimits) maxCalls() int {
	if l.MaxCallsPerResponse > 0 {
		return l.MaxCallsPerResponse
	}
	return DefaultMaxCallsPerResponse
}

// boundResponse enforces l on a plan result inside the planning activity,
// before its output is recorded: calls over a limit, or whose arguments are
// not JSON at all, get the failure they
// will be answered with, keyed by call id, and their arguments — in the
// result's calls and in its messages — become {}, so neither the engine's
// history nor the transcript keeps what the limits refuse.
func boundResponse(res *planner.PlanResult, l OutputLimits) map[string]*planner.ToolFailure {
	emptyArguments(res)
	refused := map[string]*planner.ToolFailure{}
	if n, limit := len(res.ToolCalls), l.maxCalls(); n > limit {
		f := &planner.ToolFailure{Code: toolcall.KindInvalidPayload, Recovery: planner.RecoveryCorrectCall, Message: fmt.Sprintf(
			"Not run: the response asked for %d tool calls; at most %d may be asked at once (limit: calls per response). Ask for fewer calls and try again.", n, limit)}
		for _, c := range res.ToolCalls {
			refused[c.CallID] = f
		}
	} else {
		for _, c := range res.ToolCalls {
			if err := tools.BoundPayload(c.Ident, c.Payload, l.payload()); err != nil {
				refused[c.CallID] = toolcall.RefusedPayload(err)
			} else if !json.Valid(c.Payload) {
				// Malformed arguments could not even be recorded as JSON.
				refused[c.CallID] = toolcall.NotJSON()
			}
		}
	}
	if len(refused) == 0 {
		return nil
	}
	wire := map[string]string{}
	for i, c := range res.ToolCalls {
		if refused[c.CallID] != nil {
			res.ToolCalls[i].Payload = json.RawMessage(`{}`)
			wire[c.CallID] = c.Name
		}
	}
	for _, c := range toolCallParts(res.Messages) {
		if refused[c.ID] != nil {
			// A call made through call_tool keeps the tool's name.
			setCallPayload(c, wire[c.ID], json.RawMessage(`{}`))
		}
	}
	return refused
}

// emptyArguments writes the empty arguments some providers send for a
// tool without parameters as {}, their meaning, so every recorded payload
// is one JSON value.
func emptyArguments(res *planner.PlanResult) {
	empty := func(p json.RawMessage) bool { return len(bytes.TrimSpace(p)) == 0 }
	for i, c := range res.ToolCalls {
		if empty(c.Payload) {
			res.ToolCalls[i].Payload = json.RawMessage(`{}`)
		}
	}
	for _, c := range toolCallParts(res.Messages) {
		if empty(c.Payload) {
			c.Payload = json.RawMessage(`{}`)
		}
	}
}

// toolCallParts returns the tool calls of msgs, as the messages hold them:
// changing one changes the message.
func toolCallParts(msgs []model.Message) []*model.ToolCall {
	var out []*model.ToolCall
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == model.PartToolCall && p.ToolCall != nil {
				out = append(out, p.ToolCall)
			}
		}
	}
	return out
}
