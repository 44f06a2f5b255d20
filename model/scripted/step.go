package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/quiver-go/quiver/model"
)

// ToolCallSpec is one tool call a step makes.
type ToolCallSpec struct {
	// ID is the call id; empty gets "call_<n>" (see the package doc).
	ID string
	// Name is the wire name of the tool called; it must not be empty.
	Name string
	// Payload is the call's arguments as JSON text; empty means {}.
	Payload string
}

// Step answers one request of a script. Build steps with Reply, Call,
// Calls, Assistant, Respond, Fail, FailMidStream, Func and Choose; the
// zero Step fails when played.
type Step struct {
	// label names the step in errors, e.g. Call("search_tools").
	label string
	// err is the step's construction error, without the package prefix.
	err error
	// play answers req, the client's own copy of the request.
	play func(ctx context.Context, c *Client, req *model.Request) (*model.Response, error)
}

// Err returns the step's construction error (e.g. a Call payload that is
// not valid JSON), or nil. Playing a step with an error returns it.
func (s Step) Err() error {
	if s.err != nil {
		return fmt.Errorf("scripted: %w", s.err)
	}
	return nil
}

// String names the step as it was built, e.g. Call("search_tools").
func (s Step) String() string {
	if s.label == "" {
		return "Step{}"
	}
	return s.label
}

// Reply returns a step answering with a final assistant message holding
// text (stop reason StopEndTurn).
func Reply(text string) Step {
	return assistant(fmt.Sprintf("Reply(%s)", quoteShort(text)), text, nil)
}

// Call returns a step answering with one call of the tool named name with
// payloadJSON as arguments (empty means {}), stop reason StopToolUse. A
// payload that is not valid JSON or an empty name is a construction error:
// see Step.Err.
func Call(name string, payloadJSON string) Step {
	return assistant(fmt.Sprintf("Call(%q)", name), "", []ToolCallSpec{{Name: name, Payload: payloadJSON}})
}

// Calls returns a step answering with the given tool calls, in order, stop
// reason StopToolUse. No calls, an empty name or a payload that is not
// valid JSON is a construction error: see Step.Err.
func Calls(calls ...ToolCallSpec) Step {
	s := assistant("Calls("+callNames(calls)+")", "", calls)
	if len(calls) == 0 && s.err == nil {
		s.err = errors.New("Calls(): no tool calls; use Reply for a final answer")
	}
	return s
}

// Assistant returns a step answering with one assistant message holding
// text (when not empty) followed by the given tool calls: stop reason
// StopToolUse when there are calls, StopEndTurn otherwise.
func Assistant(text string, calls ...ToolCallSpec) Step {
	label := "Assistant(" + quoteShort(text)
	if len(calls) > 0 {
		label += ", " + callNames(calls)
	}
	return assistant(label+")", text, calls)
}

// Respond returns a step answering with a copy of resp, verbatim: its
// messages, tool calls (ids included), usage and stop reason are returned
// as given. A nil resp is a construction error.
func Respond(resp *model.Response) Step {
	s := Step{label: "Respond"}
	if resp == nil {
		s.err = errors.New("Respond: nil response")
		return s
	}
	kept := cloneResponse(resp)
	s.play = func(_ context.Context, c *Client, _ *model.Request) (*model.Response, error) {
		out := cloneResponse(kept)
		c.reserveCalls(len(out.ToolCalls))
		return out, nil
	}
	return s
}

// Fail returns a step answering with err, returned as given (unwrapped), as
// a provider error would be. A nil err is a construction error.
func Fail(err error) Step {
	s := Step{label: "Fail"}
	if err == nil {
		s.err = errors.New("Fail: nil error")
		return s
	}
	s.play = func(context.Context, *Client, *model.Request) (*model.Response, error) { return nil, verbatim{err} }
	return s
}

// Func returns a step answering with fn's outcome for the request (fn gets
// its own copy). An error from fn is returned as given; a response is
// returned as fn built it, except that a zero Usage is filled as for Reply.
// fn must return a response or an error.
func Func(fn func(req *model.Request) (*model.Response, error)) Step {
	s := Step{label: "Func"}
	if fn == nil {
		s.err = errors.New("Func: nil function")
		return s
	}
	s.play = func(ctx context.Context, c *Client, req *model.Request) (*model.Response, error) {
		mine := cloneRequest(req)
		resp, err := fn(&mine)
		if err != nil {
			return nil, verbatim{err}
		}
		if resp == nil {
			return nil, errors.New("returned neither a response nor an error")
		}
		out := cloneResponse(resp)
		c.reserveCalls(len(out.ToolCalls))
		if out.Usage == (model.Usage{}) {
			if out.Usage, err = c.usage(ctx, req, out.Messages); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return s
}

// Choose returns a step that asks fn which step answers the request (fn
// gets its own copy), then plays it: e.g. a Call of a tool the request
// shows was discovered. Call ids and usage follow the chosen step.
func Choose(fn func(req *model.Request) Step) Step {
	s := Step{label: "Choose"}
	if fn == nil {
		s.err = errors.New("Choose: nil function")
		return s
	}
	s.play = func(ctx context.Context, c *Client, req *model.Request) (*model.Response, error) {
		mine := cloneRequest(req)
		chosen := fn(&mine)
		if chosen.err != nil {
			return nil, fmt.Errorf("chose %w", chosen.err)
		}
		if chosen.play == nil {
			return nil, errors.New("chose the zero Step")
		}
		return chosen.play(ctx, c, req)
	}
	return s
}

// assistant returns a step answering with one assistant message: text when
// not empty, then calls.
func assistant(label, text string, calls []ToolCallSpec) Step {
	s := Step{label: label}
	specs := make([]ToolCallSpec, len(calls))
	for i, call := range calls {
		if call.Name == "" {
			s.err = fmt.Errorf("%s: tool call %d has no name", label, i+1)
			return s
		}
		if call.Payload == "" {
			call.Payload = "{}"
		}
		if err := json.Unmarshal([]byte(call.Payload), new(json.RawMessage)); err != nil {
			s.err = fmt.Errorf("%s: payload of %q is not valid JSON: %w", label, call.Name, err)
			return s
		}
		specs[i] = call
	}
	s.play = func(ctx context.Context, c *Client, req *model.Request) (*model.Response, error) {
		first := c.reserveCalls(len(specs))
		msg := model.Message{Role: model.RoleAssistant}
		if text != "" {
			msg.Parts = append(msg.Parts, model.Text(text))
		}
		resp := &model.Response{StopReason: model.StopEndTurn}
		for i, spec := range specs {
			id := spec.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", first+i)
			}
			call := model.ToolCall{ID: id, Name: spec.Name, Payload: json.RawMessage(spec.Payload)}
			inMsg := call
			inMsg.Payload = json.RawMessage(spec.Payload)
			msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolCall, ToolCall: &inMsg})
			resp.ToolCalls = append(resp.ToolCalls, call)
			resp.StopReason = model.StopToolUse
		}
		resp.Messages = []model.Message{msg}
		usage, err := c.usage(ctx, req, resp.Messages)
		if err != nil {
			return nil, err
		}
		resp.Usage = usage
		return resp, nil
	}
	return s
}

// callNames joins the names of calls for a step label.
func callNames(calls []ToolCallSpec) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = fmt.Sprintf("%q", c.Name)
	}
	return strings.Join(names, ", ")
}

// quoteShort quotes text for a step label, cut to 40 bytes.
func quoteShort(text string) string {
	const limit = 40
	if len(text) <= limit {
		return fmt.Sprintf("%q", text)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", text[:cut])
}
