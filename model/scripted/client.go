package scripted

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/tokencount"
)

// ErrScriptExhausted is returned, wrapped with the script's length, for a
// request that comes after the last step.
var ErrScriptExhausted = errors.New("scripted: script exhausted")

// Client is a model.Client that answers requests with the steps of a
// script, in order, and records every request. It also implements
// model.TokenCounter. It is safe for concurrent use.
type Client struct {
	steps []Step

	// nativeSearch is set by WithNativeSearch: the client then plays a
	// provider that searches deferred tools natively.
	nativeSearch atomic.Bool

	countOnce sync.Once
	counter   *tokencount.Counter
	countErr  error

	mu       sync.Mutex
	next     int // index of the next step to play
	emitted  int // tool calls emitted so far, for call ids
	requests []model.Request
}

// New returns a client playing steps in order, one per request. It
// declares no native tool search: call WithNativeSearch to script a
// provider that searches deferred tools natively, or wrap it with
// portable.Wrap for portable search.
func New(steps ...Step) *Client {
	return &Client{steps: slices.Clone(steps)}
}

// WithNativeSearch makes c play a provider that searches deferred tools
// natively: SupportsSearch then accepts native mode (model.SearchNative),
// deferred tools reach the script as they would reach such a provider, and
// the script says what the model does (it searches nothing). It returns c,
// for chaining after New:
//
//	client := scripted.New(steps...).WithNativeSearch()
func (c *Client) WithNativeSearch() *Client {
	c.nativeSearch.Store(true)
	return c
}

// Complete answers req with the next step of the script. A cancelled ctx
// or a nil req is refused before anything is recorded or played; otherwise
// the request is recorded, and a request past the end of the script fails
// with ErrScriptExhausted. Errors of Fail steps and of Func functions are
// returned as given; other errors name the step.
func (c *Client) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	if req == nil {
		return nil, errors.New("scripted: nil request")
	}
	c.mu.Lock()
	c.requests = append(c.requests, cloneRequest(req))
	i := c.next
	if i >= len(c.steps) {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w after %d responses; the run asked for another model response: add a step", ErrScriptExhausted, len(c.steps))
	}
	c.next++
	step := c.steps[i]
	c.mu.Unlock()

	if step.err != nil {
		return nil, fmt.Errorf("scripted: step %d: %w", i+1, step.err)
	}
	if step.play == nil {
		return nil, fmt.Errorf("scripted: step %d is the zero Step: build steps with Reply, Call, Calls, Assistant, Respond, Fail, Func or Choose", i+1)
	}
	own := cloneRequest(req)
	resp, err := step.play(ctx, c, &own)
	if err != nil {
		if v, ok := err.(verbatim); ok {
			return nil, v.err
		}
		return nil, fmt.Errorf("scripted: step %d %s: %w", i+1, step, err)
	}
	return resp, nil
}

// Stream answers req like Complete and delivers the response as chunks:
// one per text part, one per tool call of Response.ToolCalls, then
// ChunkDone with the whole response; then Recv returns io.EOF. Errors that
// Complete would return are returned by Stream itself. Recv fails once ctx
// is cancelled.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := c.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}

// Requests returns deep copies of the requests received so far, in order.
func (c *Client) Requests() []model.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]model.Request, len(c.requests))
	for i := range c.requests {
		out[i] = cloneRequest(&c.requests[i])
	}
	return out
}

// Remaining returns how many steps are left to play.
func (c *Client) Remaining() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.steps) - c.next
}

// Calls returns how many requests the client has received and recorded:
// answered, failed or past the end of the script (requests refused for a
// cancelled context or a nil request excepted). It equals len(Requests()).
func (c *Client) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.requests)
}

// CountTokens counts the tokens of a conversation with a
// tokencount.Counter (o200k_base); it records nothing and plays no step.
func (c *Client) CountTokens(ctx context.Context, system string, msgs []model.Message) (int, error) {
	counter, err := c.tokenCounter()
	if err != nil {
		return 0, err
	}
	return counter.CountTokens(ctx, system, msgs)
}

// tokenCounter returns the client's counter, built on first use.
func (c *Client) tokenCounter() (*tokencount.Counter, error) {
	c.countOnce.Do(func() {
		c.counter, c.countErr = tokencount.NewCounter()
	})
	return c.counter, c.countErr
}

// usage returns the usage of answering req with msgs: input tokens of the
// whole request, output tokens of the messages' content.
func (c *Client) usage(ctx context.Context, req *model.Request, msgs []model.Message) (model.Usage, error) {
	counter, err := c.tokenCounter()
	if err != nil {
		return model.Usage{}, err
	}
	in, err := counter.CountRequest(ctx, req)
	if err != nil {
		return model.Usage{}, err
	}
	out, err := counter.CountContent(msgs)
	if err != nil {
		return model.Usage{}, err
	}
	return model.Usage{InputTokens: in, OutputTokens: out}, nil
}

// reserveCalls reserves n call numbers and returns the first.
func (c *Client) reserveCalls(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := c.emitted + 1
	c.emitted += n
	return first
}

// verbatim marks an error a step returns as given: a Fail error or one
// from a Func function.
type verbatim struct{ err error }

// Error returns the wrapped error's message.
func (v verbatim) Error() string { return v.err.Error() }

// cloneRequest returns a deep copy of req.
func cloneRequest(req *model.Request) model.Request {
	c := *req
	c.Messages = model.CloneMessages(req.Messages)
	c.StructuredOutput = req.StructuredOutput.Clone()
	if req.Tools != nil {
		c.Tools = make([]model.ToolDefinition, len(req.Tools))
		for i, d := range req.Tools {
			c.Tools[i] = d.Clone()
		}
	}
	return c
}

// cloneResponse returns a deep copy of resp.
func cloneResponse(resp *model.Response) *model.Response {
	c := *resp
	c.Messages = model.CloneMessages(resp.Messages)
	c.IgnoredCheckpoints = slices.Clone(resp.IgnoredCheckpoints)
	if resp.ToolCalls != nil {
		c.ToolCalls = make([]model.ToolCall, len(resp.ToolCalls))
		for i, call := range resp.ToolCalls {
			call.Payload = slices.Clone(call.Payload)
			c.ToolCalls[i] = call
		}
	}
	return &c
}

// SupportsSearch implements model.SearchCapable. Native mode is accepted
// only after WithNativeSearch; otherwise it is refused with an error
// wrapping model.ErrToolSearchUnsupported that names both fixes, so an
// agent that defers tools to a plain script fails its registration (or its
// run's start) instead of ending with every deferred call refused and no
// search tool ever offered. Portable mode needs portable.Wrap, as for any
// client.
func (c *Client) SupportsSearch(s model.SearchSettings) error {
	if err := model.NativeSearch(s); err != nil {
		return fmt.Errorf("scripted: %w", err)
	}
	if !c.nativeSearch.Load() {
		return fmt.Errorf("scripted: the client declares no native tool search, so nothing would offer the deferred tools: call WithNativeSearch (scripted.New(...).WithNativeSearch()) to script a provider that searches natively, or wrap it with portable.Wrap and set Search.Mode to model.SearchPortable: %w", model.ErrToolSearchUnsupported)
	}
	return nil
}

// Compile-time checks of the interfaces Client implements.
var (
	_ model.Client        = (*Client)(nil)
	_ model.TokenCounter  = (*Client)(nil)
	_ model.SearchCapable = (*Client)(nil)
)
