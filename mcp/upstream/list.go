package upstream

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool an upstream server lists, as it lists it.
type Tool struct {
	// Name is the server's own name for the tool.
	Name string
	// Title and Description are the server's, as listed.
	Title       string
	Description string
	// InputSchema and OutputSchema are the JSON Schemas of the tool's
	// arguments and structured result (OutputSchema empty for none).
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Annotations are the server's tool annotations (readOnlyHint…), or
	// empty.
	Annotations json.RawMessage
}

// maxPages bounds how many pages Tools reads: a server whose cursors
// never end is an error, not a loop.
const maxPages = 1000

// Tools lists every tool the server offers, following pagination, within
// Config.ListTimeout.
func (c *Client) Tools(ctx context.Context) ([]Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ListTimeout)
	defer cancel()
	s, err := c.session(ctx)
	if err != nil {
		return nil, fmt.Errorf("upstream: server %q: list tools: %w", c.name, err)
	}
	var out []Tool
	cursor := ""
	for range maxPages {
		res, err := s.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("upstream: server %q: list tools: %w", c.name, err)
		}
		for _, t := range res.Tools {
			tool, err := fromMCP(t)
			if err != nil {
				return nil, fmt.Errorf("upstream: server %q: list tools: tool %q: %w", c.name, t.Name, err)
			}
			out = append(out, tool)
		}
		if res.NextCursor == "" {
			return out, nil
		}
		cursor = res.NextCursor
	}
	return nil, fmt.Errorf("upstream: server %q: list tools: more than %d pages", c.name, maxPages)
}

// fromMCP converts the SDK's tool.
func fromMCP(t *mcp.Tool) (Tool, error) {
	tool := Tool{Name: t.Name, Title: t.Title, Description: t.Description}
	var err error
	if tool.InputSchema, err = rawJSON(t.InputSchema); err != nil {
		return tool, fmt.Errorf("inputSchema: %w", err)
	}
	if tool.OutputSchema, err = rawJSON(t.OutputSchema); err != nil {
		return tool, fmt.Errorf("outputSchema: %w", err)
	}
	if t.Annotations != nil {
		if tool.Annotations, err = json.Marshal(t.Annotations); err != nil {
			return tool, fmt.Errorf("annotations: %w", err)
		}
	}
	if tool.Title == "" && t.Annotations != nil {
		tool.Title = t.Annotations.Title
	}
	return tool, nil
}

// rawJSON marshals v, nil for none.
func rawJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(v)
}
