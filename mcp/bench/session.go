package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/tools"
)

// The requests each session makes.
const (
	// Query is the search_tools query; it finds ToolName.
	Query = "count rows"
	// ToolName is the tool called, by its wire name; Tool is its ident.
	ToolName = "countRows"
	// Tool is the ident of the tool called.
	Tool tools.Ident = "workspace.countRows"
	// Arguments are the call's arguments: the late orders, of which the
	// demo workspace holds wantCount.
	Arguments = `{"table":"sales.orders","filter":"status = 'late'"}`
	wantCount = 12
)

// ErrorCounts counts failed requests by class.
type ErrorCounts struct {
	// Transport counts requests without an answer: connection, HTTP
	// status, stream or timeout errors.
	Transport int
	// RPC counts JSON-RPC error answers.
	RPC int
	// Tool counts tool errors (results with isError), none of which the
	// benchmark's requests should get.
	Tool int
	// Unexpected counts answers without what they must hold.
	Unexpected int
}

// Total is the number of failed requests.
func (c ErrorCounts) Total() int { return c.Transport + c.RPC + c.Tool + c.Unexpected }

func (c *ErrorCounts) add(o ErrorCounts) {
	c.Transport += o.Transport
	c.RPC += o.RPC
	c.Tool += o.Tool
	c.Unexpected += o.Unexpected
}

// The codes of the JSON-RPC errors the SDK makes up on the client's side
// for a request that got no answer: the transport refused or failed it
// (an HTTP error, a closed connection), or the session was closing. They
// count as transport errors; every other JSON-RPC error is the server's
// answer.
const (
	codeRejected      = -32005
	codeClientClosing = -32003
)

// requestError is a failed request and its class.
type requestError struct {
	class *int // the counter in an ErrorCounts
	err   error
}

func (e *requestError) Error() string { return e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

// client is one MCP client session and what it measured.
type client struct {
	cs       *sdk.ClientSession
	searched bool // a search found ToolName: tools/list must hold it
	classes  ErrorCounts
	list     recorder
	search   recorder
	call     recorder
}

// fail classifies a request's failure into c's counts; nil stays nil.
func (c *client) fail(err error) error {
	if err == nil {
		return nil
	}
	var re *requestError
	if !errors.As(err, &re) {
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) && rpc.Code != codeRejected && rpc.Code != codeClientClosing {
			re = &requestError{class: &c.classes.RPC, err: fmt.Errorf("JSON-RPC error %d: %w", rpc.Code, err)}
		} else {
			re = &requestError{class: &c.classes.Transport, err: err}
		}
	}
	*re.class++
	return re
}

// newClient returns the SDK client a session connects with.
func newClient() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "quiver-bench", Version: "1"}, nil)
}

// connectHTTP opens one client session over streamable HTTP, the
// standalone SSE stream included.
func connectHTTP(ctx context.Context, url string, hc *http.Client) (*sdk.ClientSession, error) {
	return newClient().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
}

// round makes one tools/list, one search and one call, each measured
// alone and checked after its clock stopped.
func (c *client) round(ctx context.Context, timeout time.Duration) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	t := time.Now()
	list, err := c.cs.ListTools(rctx, nil)
	d := time.Since(t)
	cancel()
	c.list.add(d, c.fail(c.checkList(list, err)))

	rctx, cancel = context.WithTimeout(ctx, timeout)
	t = time.Now()
	found, err := c.cs.CallTool(rctx, &sdk.CallToolParams{Name: mcp.SearchToolName, Arguments: map[string]string{"query": Query}})
	d = time.Since(t)
	cancel()
	err = c.checkSearch(found, err)
	c.searched = c.searched || err == nil
	c.search.add(d, c.fail(err))

	rctx, cancel = context.WithTimeout(ctx, timeout)
	t = time.Now()
	res, err := c.cs.CallTool(rctx, &sdk.CallToolParams{Name: ToolName, Arguments: json.RawMessage(Arguments)})
	d = time.Since(t)
	cancel()
	c.call.add(d, c.fail(c.checkCall(res, err)))
}

// checkList checks that the listing holds the search tool, and ToolName
// once a search found it.
func (c *client) checkList(res *sdk.ListToolsResult, err error) error {
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if res == nil {
		return c.unexpected(errors.New("tools/list: no result"))
	}
	names := make([]string, 0, len(res.Tools))
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	if !slices.Contains(names, mcp.SearchToolName) || (c.searched && !slices.Contains(names, ToolName)) {
		return c.unexpected(fmt.Errorf("tools/list: %v, want %s and, after a search, %s", names, mcp.SearchToolName, ToolName))
	}
	return nil
}

// checkSearch checks that the search found ToolName.
func (c *client) checkSearch(res *sdk.CallToolResult, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", mcp.SearchToolName, err)
	}
	if res == nil {
		return c.unexpected(fmt.Errorf("%s: no result", mcp.SearchToolName))
	}
	text := textOf(res)
	if res.IsError {
		return &requestError{class: &c.classes.Tool, err: fmt.Errorf("%s: tool error: %s", mcp.SearchToolName, text)}
	}
	var ans struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(text), &ans); err == nil {
		for _, t := range ans.Tools {
			if t.Name == ToolName {
				return nil
			}
		}
		// Once found, a tool is not found again: the answer names it among
		// the tools callable without searching.
		if c.searched && len(ans.Tools) == 0 && strings.Contains(ans.Message, ToolName) {
			return nil
		}
	}
	return c.unexpected(fmt.Errorf("%s(%q) did not find %s: %s", mcp.SearchToolName, Query, ToolName, text))
}

// checkCall checks that the call counted the late orders.
func (c *client) checkCall(res *sdk.CallToolResult, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", ToolName, err)
	}
	if res == nil {
		return c.unexpected(fmt.Errorf("%s: no result", ToolName))
	}
	text := textOf(res)
	if res.IsError {
		return &requestError{class: &c.classes.Tool, err: fmt.Errorf("%s: tool error: %s", ToolName, text)}
	}
	if err := checkCount(json.RawMessage(text)); err != nil {
		return c.unexpected(err)
	}
	return nil
}

func (c *client) unexpected(err error) error {
	return &requestError{class: &c.classes.Unexpected, err: err}
}

// checkCount checks that a countRows result counts wantCount rows.
func checkCount(result json.RawMessage) error {
	var r struct {
		Count *int `json:"count"`
	}
	if err := json.Unmarshal(result, &r); err != nil || r.Count == nil || *r.Count != wantCount {
		return fmt.Errorf("%s: result %s, want the count %d", ToolName, result, wantCount)
	}
	return nil
}

// textOf joins a result's text content.
func textOf(res *sdk.CallToolResult) string {
	out := ""
	for _, ct := range res.Content {
		if tc, ok := ct.(*sdk.TextContent); ok {
			out += tc.Text
		}
	}
	return out
}
