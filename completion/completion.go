package completion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// ErrToolsInCompletion is wrapped by the error of a completion request
// that offers tools (model.Request.Tools) or constrains their use
// (model.Request.ToolChoice): a completion's answer is its typed value,
// never a tool call. No model request is made.
var ErrToolsInCompletion = errors.New("completion: a completion request offers no tools")

// ErrStructuredOutputSet is wrapped by the error of a completion request
// whose model.Request.StructuredOutput is already set: the completion's
// [Definition] sets it. No model request is made.
var ErrStructuredOutputSet = errors.New("completion: the request already sets StructuredOutput")

// ErrNilRequest is returned for a nil request: a completion needs the
// conversation to answer. No model request is made.
var ErrNilRequest = errors.New("completion: nil request: pass a *model.Request with the messages to answer")

// Definition declares a completion: its name (a valid
// model.StructuredOutput name), what the answer is, and the JSON Schema
// the answer must meet.
type Definition struct {
	// Name identifies the completion to the provider and in errors.
	Name string
	// Description tells the model what the answer is.
	Description string
	// Schema is the answer's JSON Schema, a JSON object.
	Schema json.RawMessage
}

// Completion runs one declared completion, typed T. Build it with [New];
// it is immutable and safe for concurrent use.
type Completion[T any] struct {
	def    Definition
	spec   tools.TypeSpec
	decode func(raw []byte) (T, error)
	// err is what is wrong with the definition, returned by every call
	// before any request.
	err error
}

// New returns the completion def declares, decoding validated answers
// with decode. decode is called only with an answer that has already met
// def.Schema (generated codecs rely on it). A definition whose name or
// schema is invalid, or a nil decode, does not panic: every call of the
// completion returns the problem, before any model request.
func New[T any](def Definition, decode func(raw []byte) (T, error)) *Completion[T] {
	def.Schema = bytes.Clone(def.Schema)
	c := &Completion[T]{def: def, decode: decode}
	so := c.structuredOutput()
	if err := so.Check(); err != nil {
		c.err = fmt.Errorf("completion: definition: %w", err)
		return c
	}
	spec, err := tools.NewTypeSpec(def.Name, def.Schema)
	if err != nil {
		c.err = fmt.Errorf("completion %q: definition: %w", def.Name, err)
		return c
	}
	c.spec = spec
	if decode == nil {
		c.err = fmt.Errorf("completion %q: definition: nil decode function: pass the generated codec's decoder to completion.New", def.Name)
	}
	return c
}

// Definition returns a copy of c's definition.
func (c *Completion[T]) Definition() Definition {
	d := c.def
	d.Schema = bytes.Clone(c.def.Schema)
	return d
}

// Complete makes one model request for req's conversation with c's
// structured output, and returns the answer validated and decoded. It
// refuses, before any request, a nil req, a req with tools
// ([ErrToolsInCompletion]) or with its own structured output
// ([ErrStructuredOutputSet]). An answer that breaks the contract returns a
// *planner.OutputContractError; the model is not asked again. Errors of
// the client (model.ErrStructuredOutputUnsupported among them) are
// returned wrapped.
func (c *Completion[T]) Complete(ctx context.Context, client model.Client, req *model.Request) (T, error) {
	var zero T
	r, err := c.prepare(client, req)
	if err != nil {
		return zero, err
	}
	resp, err := client.Complete(ctx, r)
	if err != nil {
		return zero, fmt.Errorf("completion %q: %w", c.def.Name, err)
	}
	return c.finish(resp)
}

// StreamComplete makes one streamed model request like
// [Completion.Complete] and returns its [Streamer]. The same requests are
// refused, before any model request; an error of client.Stream is
// returned wrapped.
func (c *Completion[T]) StreamComplete(ctx context.Context, client model.Client, req *model.Request) (*Streamer[T], error) {
	r, err := c.prepare(client, req)
	if err != nil {
		return nil, err
	}
	src, err := client.Stream(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("completion %q: %w", c.def.Name, err)
	}
	if src == nil {
		return nil, fmt.Errorf("completion %q: %T.Stream returned neither a stream nor an error", c.def.Name, client)
	}
	return &Streamer[T]{c: c, src: src}, nil
}

// prepare checks req and returns the copy to send: req with c's
// structured output.
func (c *Completion[T]) prepare(client model.Client, req *model.Request) (*model.Request, error) {
	if c.err != nil {
		return nil, c.err
	}
	if client == nil {
		return nil, fmt.Errorf("completion %q: nil model.Client", c.def.Name)
	}
	if req == nil {
		return nil, fmt.Errorf("completion %q: %w", c.def.Name, ErrNilRequest)
	}
	if len(req.Tools) > 0 {
		names := make([]string, len(req.Tools))
		for i, t := range req.Tools {
			names[i] = t.Name
		}
		return nil, fmt.Errorf("completion %q: the request offers tools %s: remove Request.Tools (a completion answers with its typed value; use an agent to call tools): %w", c.def.Name, strings.Join(names, ", "), ErrToolsInCompletion)
	}
	if req.ToolChoice != (model.ToolChoice{}) {
		return nil, fmt.Errorf("completion %q: the request sets ToolChoice %q: leave it zero: %w", c.def.Name, req.ToolChoice.Mode, ErrToolsInCompletion)
	}
	if req.StructuredOutput != nil {
		return nil, fmt.Errorf("completion %q: the request sets StructuredOutput %q: leave it nil, the completion's definition sets it: %w", c.def.Name, req.StructuredOutput.Name, ErrStructuredOutputSet)
	}
	r := *req
	r.StructuredOutput = c.structuredOutput()
	return &r, nil
}

// structuredOutput returns a fresh copy of c's structured output.
func (c *Completion[T]) structuredOutput() *model.StructuredOutput {
	return &model.StructuredOutput{Name: c.def.Name, Description: c.def.Description, Schema: bytes.Clone(c.def.Schema)}
}

// finish validates resp's answer and decodes it.
func (c *Completion[T]) finish(resp *model.Response) (T, error) {
	var zero T
	if resp == nil {
		return zero, fmt.Errorf("completion %q: the model client returned neither a response nor an error", c.def.Name)
	}
	raw := resp.Text()
	if vs := c.refusals(resp); len(vs) > 0 {
		return zero, c.contractError(raw, vs)
	}
	if err := c.spec.Validate([]byte(raw)); err != nil {
		return zero, c.contractError(raw, violations(err))
	}
	v, err := c.decode([]byte(raw))
	if err != nil {
		return zero, c.contractError(raw, []string{"the answer meets the schema but its decoder refused it: " + err.Error()})
	}
	return v, nil
}

// refusals lists what makes resp no answer at all, whatever its text.
func (c *Completion[T]) refusals(resp *model.Response) []string {
	var vs []string
	if len(resp.ToolCalls) > 0 {
		names := make([]string, len(resp.ToolCalls))
		for i, call := range resp.ToolCalls {
			names[i] = call.Name
		}
		vs = append(vs, fmt.Sprintf("the model called %s instead of answering: a completion offers no tools", strings.Join(names, ", ")))
	}
	if resp.StopReason == model.StopMaxTokens {
		vs = append(vs, "the answer was cut off at the output token limit (stop reason max_tokens): raise Request.MaxTokens")
	}
	return vs
}

// contractError is the error of an answer that breaks the contract.
func (c *Completion[T]) contractError(raw string, vs []string) *planner.OutputContractError {
	return &planner.OutputContractError{Completion: c.def.Name, Raw: raw, Violations: vs}
}

// violations renders a validation error as violation lines.
func violations(err error) []string {
	var ve *tools.ValidationError
	if errors.As(err, &ve) {
		out := make([]string, len(ve.Violations))
		for i, v := range ve.Violations {
			out[i] = v.String()
		}
		return slices.Compact(out)
	}
	var je *tools.JSONError
	if errors.As(err, &je) {
		return []string{fmt.Sprintf("the answer is not one JSON document: at offset %d: %s", je.Offset, je.Problem)}
	}
	return []string{err.Error()}
}
