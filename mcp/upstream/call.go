package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/toolcall"
)

// Execute implements [toolcall.Executor]: it calls the upstream tool the
// call's ident maps to — through the names of the toolset built on c
// ([Toolset.Names]), else the ident's tool part as is — with the call's
// payload ([toolcall.Call.InjectedPayload]: the canonical payload, with
// the injected fields a declared tool has) as its arguments.
//
// The result JSON is the server's structuredContent when it sends one;
// else its content: a single text item holding a JSON object or array is
// that JSON, a single other text item is {"text": "…"}, and anything else
// is {"content": [the items as MCP spells them]}. A result whose JSON is
// bigger than Config.MaxResultBytes is not passed on.
//
// Failures the model reads ([toolcall.Result.Failure]):
//   - isError: [toolcall.KindToolError], with the server's text;
//   - an MCP error response (unknown tool, invalid params…):
//     [toolcall.KindToolError], with its message;
//   - a result bigger than MaxResultBytes, or one the SDK cannot decode:
//     [toolcall.KindInvalidResult];
//   - the call's deadline (ctx's, else Config.CallTimeout):
//     [toolcall.KindTimeout];
//   - the server died while the call was in flight (a stdio process that
//     exited, an HTTP connection that broke): [toolcall.KindOutcomeUnknown],
//     as the call may or may not have run; the message says the next call
//     reconnects, so the model may call again once it checked the effect;
//   - the server cannot be reached (reconnecting failed, or its host
//     refused the connection): [toolcall.KindUnavailable]; nothing ran,
//     and the next call tries again.
//
// ctx cancelled by the caller is returned as its error, not as a failure;
// so is [ErrClosed] for a call after (or cut by) [Client.Close].
func (c *Client) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	tool := c.upstreamName(call)
	args, err := call.InjectedPayload()
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	limit := c.cfg.CallTimeout
	if dl, ok := ctx.Deadline(); ok {
		limit = time.Until(dl).Round(time.Millisecond)
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.CallTimeout)
		defer cancel()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(c.closing, func() { cancel(ErrClosed) })
	defer stop()
	s, err := c.session(ctx)
	if err != nil {
		if res, ended, err := c.ended(ctx, limit); ended {
			return res, err
		}
		if errors.Is(err, ErrClosed) {
			return nil, err
		}
		return c.unreachable(tool, err), nil
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return c.callError(ctx, s, tool, limit, err)
	}
	return c.result(tool, res), nil
}

// unreachable is the failure of a call that could not reach the server.
func (c *Client) unreachable(tool string, err error) *toolcall.Result {
	return &toolcall.Result{Failure: toolcall.Fail(toolcall.KindUnavailable, toolcall.RecoveryReplan,
		"Not run: the MCP server %s behind tool %s cannot be reached (%v); nothing ran. Each call tries to reconnect: call again later, or use another tool.",
		c.name, tool, err)}
}

// refusedConnection reports whether err is a connection the server's host
// refused: the request never reached the server.
func refusedConnection(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}

// ended reports whether the call's ctx has ended, and then what the call
// returns: ErrClosed when Close cut it, a timeout failure at its deadline
// (limit), the caller's cancellation otherwise.
func (c *Client) ended(ctx context.Context, limit time.Duration) (*toolcall.Result, bool, error) {
	switch {
	case context.Cause(ctx) == ErrClosed:
		return nil, true, ErrClosed
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &toolcall.Result{Failure: toolcall.Timeout(limit)}, true, nil
	case ctx.Err() != nil:
		return nil, true, ctx.Err()
	}
	return nil, false, nil
}

// callError maps an error of CallTool.
func (c *Client) callError(ctx context.Context, s *session, tool string, limit time.Duration, err error) (*toolcall.Result, error) {
	if res, ended, err := c.ended(ctx, limit); ended {
		return res, err
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if refusedConnection(err) {
		c.forget(s)
		return c.unreachable(tool, err), nil
	}
	if c.died(s, err) {
		return &toolcall.Result{Failure: toolcall.Fail(toolcall.KindOutcomeUnknown, toolcall.RecoveryReplan,
			"The MCP server %s stopped while running tool %s: the call may or may not have run. The next call reconnects to the server: check the call's effect before calling %s again.",
			c.name, tool, tool)}, nil
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return &toolcall.Result{Failure: toolcall.Fail(toolcall.KindToolError, toolcall.RecoveryReplan,
			"The MCP server %s refused the call of tool %s: %s", c.name, tool, rpc.Message)}, nil
	}
	return &toolcall.Result{Failure: toolcall.Fail(toolcall.KindInvalidResult, toolcall.RecoveryReplan,
		"The MCP server %s answered the call of tool %s with a result that is not a valid MCP tool result (%v); it may have run. Use another tool.",
		c.name, tool, err)}, nil
}

// deathGrace is how long a failed call waits for its session to end
// before it tells a broken connection from a bad answer.
const deathGrace = 250 * time.Millisecond

// The JSON-RPC codes of the SDK's own errors for a connection that ended
// or a request the transport could not deliver or finish.
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// connectionLost reports whether err is the connection failing, not the
// server answering.
func connectionLost(err error) bool {
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		switch rpc.Code {
		case codeClientClosing, codeServerClosing, codeRejected:
			return true
		}
	}
	return false
}

// died reports whether the call's error is its session ending, and then
// forgets the session so the next call reconnects.
func (c *Client) died(s *session, err error) bool {
	dead := connectionLost(err)
	if !dead {
		t := time.NewTimer(deathGrace)
		select {
		case <-s.done:
			dead = true
		case <-t.C:
		}
		t.Stop()
	}
	if dead {
		c.forget(s)
	}
	return dead
}

// forget closes s and drops it, so that the next call reconnects.
func (c *Client) forget(s *session) {
	c.mu.Lock()
	if c.sess == s {
		c.sess = nil
	}
	c.mu.Unlock()
	_ = s.cs.Close()
}

// result maps a tool result.
func (c *Client) result(tool string, res *mcp.CallToolResult) *toolcall.Result {
	if res.IsError {
		return &toolcall.Result{Failure: toolcall.Fail(toolcall.KindToolError, toolcall.RecoveryReplan,
			"Tool %s of MCP server %s failed: %s", tool, c.name, c.bounded(errorText(res.Content)))}
	}
	out, err := resultJSON(res)
	if err != nil {
		return &toolcall.Result{Failure: toolcall.Fail(toolcall.KindInvalidResult, toolcall.RecoveryReplan,
			"The MCP server %s answered the call of tool %s with a result that does not make JSON (%v).", c.name, tool, err)}
	}
	if len(out) > c.cfg.MaxResultBytes {
		return &toolcall.Result{Failure: toolcall.Fail(toolcall.KindInvalidResult, toolcall.RecoveryReplan,
			"The result of tool %s (MCP server %s) is %d bytes, more than the limit of %d; it was not kept. Ask for less (a narrower query, a smaller page), or use another tool.",
			tool, c.name, len(out), c.cfg.MaxResultBytes)}
	}
	return &toolcall.Result{Result: out}
}

// bounded cuts an error text to MaxResultBytes.
func (c *Client) bounded(s string) string {
	if len(s) > c.cfg.MaxResultBytes {
		return strings.ToValidUTF8(s[:c.cfg.MaxResultBytes], "") + "… (cut)"
	}
	return s
}

// resultJSON is the result JSON of a successful call (see Execute).
func resultJSON(res *mcp.CallToolResult) (json.RawMessage, error) {
	if res.StructuredContent != nil {
		return rawJSON(res.StructuredContent)
	}
	if len(res.Content) == 1 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			text := strings.TrimSpace(t.Text)
			if (strings.HasPrefix(text, "{") || strings.HasPrefix(text, "[")) && json.Valid([]byte(text)) {
				return json.RawMessage(text), nil
			}
			return json.Marshal(map[string]string{"text": t.Text})
		}
	}
	content := res.Content
	if content == nil {
		content = []mcp.Content{}
	}
	return json.Marshal(map[string][]mcp.Content{"content": content})
}

// errorText is the text of an isError result's content.
func errorText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "(the server gave no text)"
	}
	return strings.Join(parts, "\n")
}

// upstreamName is the server's name for the call's tool.
func (c *Client) upstreamName(call *toolcall.Call) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.names[call.Ident.Toolset()][call.Ident.Tool()]; ok {
		return n
	}
	return call.Ident.Tool()
}

// String names the client in messages.
func (c *Client) String() string { return fmt.Sprintf("upstream MCP server %q", c.name) }
