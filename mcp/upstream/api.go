package upstream

// This file fixes the package's API for the work in progress on branch
// upstream: the implementation replaces every body that panics. It is not
// merged before it does.

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// Config says how to reach one upstream MCP server: over stdio (Command)
// or streamable HTTP (URL), one of the two.
type Config struct {
	// Command, Args, Env (KEY=VALUE, added to a minimal environment) and
	// Dir start the server as a subprocess speaking MCP on stdio.
	Command string
	Args    []string
	Env     []string
	Dir     string
	// URL is the server's streamable HTTP endpoint; Header is sent with
	// every request, BearerToken as "Authorization: Bearer …", through
	// HTTPClient (a bounded default when nil).
	URL         string
	Header      http.Header
	BearerToken string
	HTTPClient  *http.Client

	// InitializeTimeout bounds connecting and the initialize handshake
	// (default 10s); CallTimeout bounds a call whose toolcall.Call carries
	// no deadline (default 60s); ListTimeout bounds listing the tools
	// (default 30s).
	InitializeTimeout time.Duration
	CallTimeout       time.Duration
	ListTimeout       time.Duration
	// MaxResultBytes bounds one call's result (default 4 MiB): a bigger
	// one is a failure the model reads, never passed on.
	MaxResultBytes int
	// MinBackoff and MaxBackoff bound the waits between reconnection
	// attempts after the server died (defaults 100ms and 10s).
	MinBackoff, MaxBackoff time.Duration

	// Handlers answers the requests a server sends back: sampling,
	// elicitation, roots. Each nil handler refuses its request with an
	// error saying the application installed none.
	Handlers Handlers
	// OnToolsChanged is called (in its own goroutine) after the server
	// sent notifications/tools/list_changed.
	OnToolsChanged func()
}

// Handlers answer what an upstream server may ask its client.
type Handlers struct {
	// Sampling answers sampling/createMessage with the model's reply.
	Sampling func(ctx context.Context, request json.RawMessage) (json.RawMessage, error)
	// Elicitation answers elicitation/create with the user's answer.
	Elicitation func(ctx context.Context, request json.RawMessage) (json.RawMessage, error)
	// Roots lists the roots the server may work in (file:// URIs).
	Roots func(ctx context.Context) ([]string, error)
}

// Tool is one tool an upstream server lists, as it lists it.
type Tool struct {
	// Name is the server's own name for the tool.
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Annotations are the server's tool annotations (readOnlyHint…).
	Annotations json.RawMessage
}

// Client is a connection to one upstream server, reconnected after the
// server dies. It is a [toolcall.Executor] for the toolsets built on it.
type Client struct{}

// Connect starts (stdio) or reaches (HTTP) the server and completes the
// initialize handshake within cfg.InitializeTimeout. name names the
// server in messages and in the toolsets built on it.
func Connect(ctx context.Context, name string, cfg Config) (*Client, error) {
	panic("not implemented")
}

// Tools lists every tool the server offers, following pagination.
func (c *Client) Tools(ctx context.Context) ([]Tool, error) { panic("not implemented") }

// Execute implements [toolcall.Executor]: it calls the upstream tool the
// call's ident maps to with the call's canonical payload.
func (c *Client) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	panic("not implemented")
}

// Close closes the connection (and stops a stdio server).
func (c *Client) Close() error { panic("not implemented") }

// Toolset is a toolset built on an upstream server: its compiled specs,
// the tools left out and why, and the executor that calls the server.
type Toolset struct {
	Name     string
	Specs    []tools.ToolSpec
	Skipped  []SkippedTool
	Executor toolcall.Executor
}

// SkippedTool is an upstream tool left out of a toolset, and why.
type SkippedTool struct {
	Name   string
	Reason string
}

// ListedToolset compiles whatever the server lists into toolset name
// (runtime-defined: no design), skipping and reporting the tools whose
// names or schemas cannot be compiled. Register it with
// rt.RegisterToolset(runtime.ToolsetRegistration{Name: ts.Name, Specs:
// ts.Specs, Executor: ts.Executor}).
func (c *Client) ListedToolset(ctx context.Context, name string) (*Toolset, error) {
	panic("not implemented")
}

// DeclaredToolset binds declared specs (a FromExternalMCP or FromMCP
// toolset's generated specs) to the server: each declared tool must be
// listed by the server with the same input schema after normalization
// (key order, $schema and annotations such as description, title and
// examples ignored); otherwise the whole toolset is refused with a
// [*DriftError] reporting every tool that differs, and nothing is called.
func (c *Client) DeclaredToolset(ctx context.Context, name string, specs []tools.ToolSpec) (*Toolset, error) {
	panic("not implemented")
}

// DriftError reports the declared tools a server lists differently or not
// at all.
type DriftError struct {
	Server  string
	Toolset string
	Tools   []ToolDrift
}

// ToolDrift is one declared tool the server disagrees on.
type ToolDrift struct {
	Tool string
	// Missing is set when the server does not list the tool.
	Missing bool
	// Diff says where the schemas differ (JSON pointers and both values).
	Diff []string
}

func (e *DriftError) Error() string { panic("not implemented") }
