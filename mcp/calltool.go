package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/discovery"
)

// Call-tool mode (Config.CallTool): a session's listing is its inline
// tools, the search tool and the call tool, whatever its searches found;
// found tools are called through the call tool, on the path of a direct
// tools/call (session.callArgs).

// searchCallListed is the search tool's definition in call-tool mode: its
// answer gives the found tools' schemas, and the tool list stays as it is.
var searchCallListed = newListedTool(&sdk.Tool{
	Name:        SearchToolName,
	Title:       "Search tools",
	Description: "Find tools by what you want to do or by name. The answer gives each found tool's name, description and inputSchema; call it with " + CallToolName + ". Your tool list does not change.",
	InputSchema: searchTool().InputSchema,
	Annotations: &sdk.ToolAnnotations{Title: "Search tools", ReadOnlyHint: true},
})

// callToolListed is the call tool's definition (discovery's, shared with
// the portable adapter), rendered once.
var callToolListed = func() listedTool {
	d := discovery.CallToolDefinition(CallToolName, SearchToolName)
	return newListedTool(&sdk.Tool{
		Name:        d.Name,
		Title:       d.Title,
		Description: d.Description,
		InputSchema: d.InputSchema,
		Annotations: &sdk.ToolAnnotations{Title: d.Title},
	})
}()

// stableListing is the session's listing in call-tool mode: the inline
// tools its tier may get from cur, the search tool and the call tool —
// the last two even before the catalog is read and when nothing is left
// to find, so that only a change of the inline tools changes it.
func (ss *session) stableListing(cur *served) map[string]listedTool {
	want := map[string]listedTool{SearchToolName: searchCallListed, CallToolName: callToolListed}
	if cur == nil {
		return want
	}
	for _, d := range ss.inScope(cur) {
		if !d.Deferred {
			want[d.Name] = cur.listed[d.Name]
		}
	}
	return want
}

// callTool answers the call tool: {"name": "<wire name>", "arguments":
// {…}} is the call of that tool with those arguments, checked, admitted
// and run as its direct tools/call is. A call that cannot be read, or
// names the search tool, the call tool itself or a tool nobody is served,
// is answered with an invalid-call error, and nothing runs.
func (ss *session) callTool(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	a, err := discovery.ParseCallTool(CallToolName, SearchToolName, req.Params.Arguments)
	if err != nil {
		return invalidCall(err), nil
	}
	cur := ss.s.snapshot()
	if cur == nil {
		return notReady(), nil
	}
	if !cur.known(&ss.s.cfg, a.Name) {
		// As a direct call of a name nobody is served: nothing tells
		// an excluded tool from one never declared.
		return invalidCall(fmt.Errorf("%s: there is no tool %q: call %s to find the tools you may call", CallToolName, a.Name, SearchToolName)), nil
	}
	return ss.callArgs(ctx, a.Name, a.Arguments, req)
}

// invalidCall is the answer to a call-tool call that did not name a tool
// to run: discovery's invalid-call JSON, as an error.
func invalidCall(err error) *sdk.CallToolResult {
	text := discovery.InvalidCallJSON(err)
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(text),
		IsError:           true,
	}
}

// callable names what a session in call-tool mode may call without a
// search, as it calls it: its inline tools by name, then the deferred
// tools its searches found as the call-tool call that reaches them
// (call_tool(name='…')), since they are not in its tool list.
func (ss *session) callable(cur *served) []string {
	defs, _ := ss.visible(cur)
	var inline, found []string
	for _, d := range defs {
		if d.Deferred {
			found = append(found, fmt.Sprintf("%s(name='%s')", CallToolName, d.Name))
			continue
		}
		inline = append(inline, d.Name)
	}
	slices.Sort(inline)
	slices.Sort(found)
	return append(inline, found...)
}
