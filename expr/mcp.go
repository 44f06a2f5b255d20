package expr

import (
	"fmt"
	"mime"
	"net/url"
	"slices"
	"strings"
	"time"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"
)

// MCPExpr is the MCP server of a Goa service: MCP(name, version) in the
// service, Tool and Resource in its methods, StaticPrompt in the service.
// Tools, resources and prompts may be recorded before MCP itself runs;
// Validate requires the MCP declaration.
type MCPExpr struct {
	// Service is the Goa service exposing the server.
	Service *goaexpr.ServiceExpr
	// Declared is set by MCP(...).
	Declared bool
	// Name is the MCP server name (FromMCP's second argument).
	Name string
	// Version is the server version.
	Version string
	// ProtocolVersion is the MCP protocol revision ("2025-06-18"); empty:
	// the runtime's default.
	ProtocolVersion string
	// Tools are the service methods exposed as MCP tools.
	Tools []*MCPToolExpr
	// Resources are the service methods exposed as MCP resources.
	Resources []*MCPResourceExpr
	// Prompts are the server's static prompts.
	Prompts []*StaticPromptExpr
}

// MCPToolExpr is a service method exposed as an MCP tool: its payload is
// the tool's input schema, its result the output schema.
type MCPToolExpr struct {
	// Method is the Goa method behind the tool.
	Method *goaexpr.MethodExpr
	// Name is the tool name.
	Name string
	// Description says what the tool does.
	Description string
}

// MCPResourceExpr is a service method exposed as an MCP resource.
type MCPResourceExpr struct {
	// Method is the Goa method that reads the resource.
	Method *goaexpr.MethodExpr
	// Name is the resource name.
	Name string
	// URI locates the resource ("file:///docs/README.md").
	URI string
	// MimeType is the resource's media type ("text/markdown").
	MimeType string
}

// StaticPromptExpr is a prompt template served as is.
type StaticPromptExpr struct {
	// Name identifies the prompt.
	Name string
	// Description says what the prompt is for.
	Description string
	// Messages are the prompt's messages, in order.
	Messages []PromptMessage
}

// PromptMessage is one message of a static prompt.
type PromptMessage struct {
	// Role is "system", "user" or "assistant".
	Role string
	// Content is the message text.
	Content string
}

// promptRoles are the roles a static prompt message may have.
var promptRoles = []string{"system", "user", "assistant"}

// EvalName implements eval.Expression.
func (m *MCPExpr) EvalName() string {
	return fmt.Sprintf("MCP server %q of %s", m.Name, m.Service.EvalName())
}

// MCPServer returns the MCP server record of the service, creating it on
// first use so that tools, resources and prompts can be recorded in any
// order.
func (r *RootExpr) MCPServer(svc *goaexpr.ServiceExpr) *MCPExpr {
	for _, m := range r.MCPServers {
		if m.Service == svc {
			return m
		}
	}
	m := &MCPExpr{Service: svc}
	r.MCPServers = append(r.MCPServers, m)
	return m
}

// MCPServerOf returns the MCP server record of the named service, or nil.
func (r *RootExpr) MCPServerOf(service string) *MCPExpr {
	for _, m := range r.MCPServers {
		if m.Service != nil && m.Service.Name == service {
			return m
		}
	}
	return nil
}

// Tool returns the MCP tool of that name.
func (m *MCPExpr) Tool(name string) *MCPToolExpr {
	for _, t := range m.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// ToolOf returns the MCP tool backed by method m, or nil.
func (m *MCPExpr) ToolOf(method *goaexpr.MethodExpr) *MCPToolExpr {
	for _, t := range m.Tools {
		if t.Method == method {
			return t
		}
	}
	return nil
}

// Validate requires MCP(...) where tools, resources or prompts are
// declared, and checks names, URIs, media types, prompt messages and the
// protocol version.
func (m *MCPExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	svc := m.Service
	if !m.Declared {
		verr.Add(svc, "MCP: service %q declares MCP tools, resources or prompts but not MCP(name, version)", svc.Name)
		return result(verr)
	}
	if strings.TrimSpace(m.Name) == "" {
		verr.Add(svc, "MCP: the server name is empty")
	}
	if strings.TrimSpace(m.Version) == "" {
		verr.Add(svc, "MCP: server %q has no version", m.Name)
	}
	if v := m.ProtocolVersion; v != "" {
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			verr.Add(svc, "ProtocolVersion: %q is not an MCP protocol revision such as \"2025-06-18\"", v)
		}
	}
	var tools, resources, prompts []string
	for _, t := range m.Tools {
		switch {
		case strings.TrimSpace(t.Name) == "":
			verr.Add(t.Method, "Tool: the MCP tool name is empty")
		case slices.Contains(tools, t.Name):
			verr.Add(t.Method, "Tool: MCP tool %q is declared twice in service %q", t.Name, svc.Name)
		}
		if strings.TrimSpace(t.Description) == "" {
			verr.Add(t.Method, "Tool: MCP tool %q has no description: the model chooses tools by their descriptions", t.Name)
		}
		tools = append(tools, t.Name)
	}
	for _, r := range m.Resources {
		switch {
		case strings.TrimSpace(r.Name) == "":
			verr.Add(r.Method, "Resource: the name is empty")
		case slices.Contains(resources, r.Name):
			verr.Add(r.Method, "Resource: %q is declared twice in service %q", r.Name, svc.Name)
		}
		resources = append(resources, r.Name)
		if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" {
			verr.Add(r.Method, "Resource: %q: %q is not an absolute URI such as \"file:///docs/README.md\"", r.Name, r.URI)
		}
		if mt, _, err := mime.ParseMediaType(r.MimeType); err != nil || !strings.Contains(mt, "/") {
			verr.Add(r.Method, "Resource: %q: %q is not a media type such as \"text/markdown\"", r.Name, r.MimeType)
		}
	}
	for _, p := range m.Prompts {
		switch {
		case strings.TrimSpace(p.Name) == "":
			verr.Add(svc, "StaticPrompt: the name is empty")
		case slices.Contains(prompts, p.Name):
			verr.Add(svc, "StaticPrompt: %q is declared twice", p.Name)
		}
		prompts = append(prompts, p.Name)
		if len(p.Messages) == 0 {
			verr.Add(svc, "StaticPrompt: %q has no messages: give role and content pairs (\"user\", \"Hello!\")", p.Name)
		}
		for _, msg := range p.Messages {
			if !slices.Contains(promptRoles, msg.Role) {
				verr.Add(svc, "StaticPrompt: %q: %q is not a role: want %s", p.Name, msg.Role, strings.Join(promptRoles, ", "))
			}
		}
	}
	return result(verr)
}

// Prepare gives every FromMCP toolset naming this server one tool per MCP
// tool, its payload and result the method's, so consumers select and
// defer MCP tools by their exact local names.
func (m *MCPExpr) Prepare() {
	if !m.Declared {
		return
	}
	for _, ts := range Root.Toolsets {
		p := ts.Provider
		if ts.Kind() != ProviderMCP || p.Service != m.Service.Name || p.Toolset != m.Name {
			continue
		}
		if !p.prepared {
			p.prepared, p.inline = true, ts.ToolNames()
		}
		for _, t := range m.Tools {
			if ts.Tool(t.Name) != nil {
				continue // declared inline: Validate rejects it
			}
			ts.Tools = append(ts.Tools, &ToolExpr{
				Toolset:     ts,
				Name:        t.Name,
				Description: t.Description,
				Args:        nonEmpty(t.Method.Payload),
				Return:      nonEmpty(t.Method.Result),
			})
		}
	}
}

// nonEmpty returns att unless it is absent or Goa's Empty type.
func nonEmpty(att *goaexpr.AttributeExpr) *goaexpr.AttributeExpr {
	if att == nil || att.Type == nil || att.Type == goaexpr.Empty {
		return nil
	}
	return att
}
