package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/model"
)

// Stream implements model.Client: it runs the invocation Complete runs,
// each provider request streamed ("stream": true), and delivers the
// output as the provider sends it. A request Complete would refuse before
// sending is refused here, with the same error; the stream then carries:
//
//   - a model.ChunkText per piece of the assistant's text (output_text
//     and refusal deltas);
//   - per function call, model.ChunkToolCallDelta pieces — the first
//     announcing the call when its item starts, then one per arguments
//     delta, with the call's call_id and the name the model called — then
//     a model.ChunkToolCall when its item is done, the call Complete
//     returns for it;
//   - a model.ChunkUsage when each request's response completes, its
//     usage mapped as Complete maps it;
//   - a model.ChunkSearch for each client-executed tool_search call the
//     discovery core answered, once the answer is recorded and before the
//     next request (which carries the tools it loaded); the search calls
//     themselves never appear as deltas or calls;
//   - model.ChunkDone with the response Complete returns for the same
//     provider answers, each round's response being the one of its
//     response.completed (or response.incomplete) event, mapped by the
//     same code.
//
// A stream that ends before its response.completed or
// response.incomplete event — the connection dropped, the body ended —
// fails with an error wrapping model.ErrStreamInterrupted; a call whose
// item was not done is not delivered. A response.failed event fails like a
// failed response of Complete (ErrResponseFailed); an "error" event is a
// *StreamError. Closing the stream, or cancelling ctx, cancels the request
// in flight. Bedrock (WithBedrock) streams the same way.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	inv, err := c.begin(req)
	if err != nil {
		return nil, err
	}
	return model.NewStream(ctx, func(ctx context.Context, emit func(model.Chunk) error) (*model.Response, error) {
		inv.sink = emit
		resp, err := inv.run(ctx)
		if err != nil {
			return nil, err
		}
		return inv.finish(resp), nil
	}), nil
}

// streamRound sends one round's request with "stream": true, hands its
// chunks to the sink as the events arrive, and returns the response of
// the round's final event for run to map, like the response of a whole
// request.
func (inv *invocation) streamRound(ctx context.Context, p responses.ResponseNewParams) (*responses.Response, error) {
	// The HTTP response, set once the provider answered: a stream that
	// began and failed was interrupted, a request that got no answer failed.
	var answered *http.Response
	st := inv.c.responses.NewStreaming(ctx, p, option.WithResponseInto(&answered))
	defer st.Close()
	r := roundStream{emit: inv.sink, calls: make(map[string]*formingCall)}
	var final *responses.Response
	events := 0
	for st.Next() {
		events++
		if final != nil {
			continue // read the stream to its end, so the connection is reused
		}
		ev := st.Current()
		switch ev.Type {
		case "response.completed", "response.incomplete":
			resp := ev.Response
			final = &resp
		case "response.failed":
			return nil, failedError(&ev.Response)
		case "error":
			return nil, &StreamError{Code: ev.Code, Message: ev.Message, Param: ev.Param}
		default:
			if err := r.handle(ev); err != nil {
				return nil, err
			}
		}
	}
	err := st.Err()
	if final != nil {
		return final, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("openai: stream: %w", context.Cause(ctx))
	}
	return nil, streamFailure(err, answered != nil, events)
}

// streamFailure is the error of a stream that ended without its final
// event, after events events: the provider's error answer, an error event
// the SDK read, a request that got no answer, or an interruption.
func streamFailure(err error, answered bool, events int) error {
	var apiErr *sdk.Error
	var evErr *ssestream.StreamError
	switch {
	case errors.As(err, &apiErr):
		return wrapSDKError(err)
	case errors.As(err, &evErr):
		return streamErrorOf(evErr)
	case err != nil && !answered:
		return wrapSDKError(err) // the request failed: no stream began
	case err != nil:
		return fmt.Errorf("openai: reading the stream after %d events: %w: %w; what was streamed is void, send the request again", events, err, model.ErrStreamInterrupted)
	}
	return fmt.Errorf("openai: the provider ended the stream after %d events without response.completed: %w; what was streamed is void, send the request again", events, model.ErrStreamInterrupted)
}

// streamErrorOf reads an event the SDK stopped at because it holds an
// "error" member: {"error":{"code","message","param"}}, or the
// ResponseErrorEvent members beside it.
func streamErrorOf(e *ssestream.StreamError) error {
	type fields struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Param   string `json:"param"`
	}
	var ev struct {
		fields
		Error *fields `json:"error"`
	}
	if json.Unmarshal(e.Event.Data, &ev) != nil {
		return &StreamError{Message: e.Message}
	}
	f := ev.fields
	if ev.Error != nil {
		f = *ev.Error
	}
	if f.Message == "" {
		f.Message = strings.TrimSpace(string(e.Event.Data))
	}
	return &StreamError{Code: f.Code, Message: f.Message, Param: f.Param}
}

// formingCall is a function call whose item started and is not done yet.
type formingCall struct {
	id, name string
	// sent are the arguments streamed so far.
	sent strings.Builder
}

// roundStream turns the events of one round into chunks. Function calls
// are followed by their item id (the deltas' item_id), so the deltas of
// any other item — a tool_search_call's included — stream nothing.
type roundStream struct {
	emit  func(model.Chunk) error
	calls map[string]*formingCall
}

// handle streams what one event carries; events that carry nothing to
// stream (content parts starting, text done, reasoning…) are skipped.
func (r *roundStream) handle(ev responses.ResponseStreamEventUnion) error {
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta == "" {
			return nil
		}
		return r.emit(model.Chunk{Kind: model.ChunkText, Text: ev.Delta})
	case "response.output_item.added":
		if ev.Item.Type != "function_call" {
			return nil
		}
		fc := ev.Item.AsFunctionCall()
		call := &formingCall{id: fc.CallID, name: fc.Name}
		r.calls[ev.Item.ID] = call
		return r.delta(call, fc.Arguments, true)
	case "response.function_call_arguments.delta":
		call, ok := r.calls[ev.ItemID]
		if !ok || ev.Delta == "" {
			return nil
		}
		return r.delta(call, ev.Delta, false)
	case "response.output_item.done":
		if ev.Item.Type != "function_call" {
			return nil
		}
		return r.done(ev.Item.ID, ev.Item.AsFunctionCall())
	}
	return nil
}

// delta streams a piece of a call's arguments; an announcing delta is
// streamed even when empty.
func (r *roundStream) delta(call *formingCall, args string, announce bool) error {
	if args == "" && !announce {
		return nil
	}
	call.sent.WriteString(args)
	return r.emit(model.Chunk{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: call.id, Name: call.name, Arguments: args}})
}

// done streams a finished call: first what its deltas left out of its
// arguments, if the provider sent less than the whole (a call never
// announced is announced with it), then the call as Complete returns it.
func (r *roundStream) done(itemID string, fc responses.ResponseFunctionToolCall) error {
	call, ok := r.calls[itemID]
	delete(r.calls, itemID)
	if !ok {
		call = &formingCall{id: fc.CallID, name: fc.Name}
		if err := r.delta(call, fc.Arguments, true); err != nil {
			return err
		}
	} else if rest, ok := strings.CutPrefix(fc.Arguments, call.sent.String()); ok {
		if err := r.delta(call, rest, false); err != nil {
			return err
		}
	}
	tc := callOf(fc)
	return r.emit(model.Chunk{Kind: model.ChunkToolCall, ToolCall: &tc})
}
