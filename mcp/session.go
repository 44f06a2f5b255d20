package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// session is one client's view of the catalog: its tier, the tools its
// searches discovered, the searches spent since its last other call, and
// the SDK server listing exactly what it may see.
type session struct {
	s      *Server
	tier   tools.Exposure
	server *sdk.Server

	// refreshing serializes refreshes: each computes the listing from the
	// catalog it read and applies it whole.
	refreshing sync.Mutex
	created    time.Time

	mu sync.Mutex
	// state is the session's discovery state, kept as the runtime keeps a
	// conversation's: the tools its searches found and the searches spent
	// since its last call that ran.
	state     model.DiscoveryState
	listed    map[string]*sdk.Tool // wire name → definition listed now
	connected bool
	closed    bool
}

// newSession starts a session of a client of tier.
func (s *Server) newSession(tier tools.Exposure) *session {
	ss := &session{s: s, tier: tier, listed: map[string]*sdk.Tool{}, created: time.Now()}
	ss.server = sdk.NewServer(&sdk.Implementation{Name: s.cfg.Name, Version: s.cfg.Version}, s.serverOptions(func() {
		ss.mu.Lock()
		ss.connected = true
		ss.mu.Unlock()
	}))
	s.addExtras(ss.server)
	ss.server.AddReceivingMiddleware(ss.unlisted)
	s.mu.Lock()
	for other := range s.sessions {
		if other.gone() {
			delete(s.sessions, other)
		}
	}
	s.sessions[ss] = true
	s.mu.Unlock()
	ss.refresh()
	return ss
}

// abandonAfter is how long a session whose client never finished
// initializing is kept.
const abandonAfter = time.Minute

// serverOptions are the options of every SDK server s makes; initialized,
// when set, hears that the client finished its handshake.
func (s *Server) serverOptions(initialized func()) *sdk.ServerOptions {
	opts := &sdk.ServerOptions{
		Logger: sdkLogger(s.log),
		// Tools, with list_changed, even before any is listed.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	}
	if initialized != nil {
		opts.InitializedHandler = func(context.Context, *sdk.InitializedRequest) { initialized() }
	}
	if v := s.cfg.ProtocolVersion; v != "" {
		opts.SupportedProtocolVersions = []string{v}
	}
	return opts
}

// gone reports whether the session's client has left, or never finished
// connecting.
func (ss *session) gone() bool {
	ss.mu.Lock()
	connected := ss.connected
	ss.mu.Unlock()
	if !connected && time.Since(ss.created) < abandonAfter {
		return false
	}
	for range ss.server.Sessions() {
		return false
	}
	return true
}

// close closes the session's connections.
func (ss *session) close() {
	ss.mu.Lock()
	ss.closed = true
	ss.mu.Unlock()
	for c := range ss.server.Sessions() {
		_ = c.Close()
	}
}

// visible returns the definitions the session may call now, and whether
// tools in its scope remain to be found by search.
func (ss *session) visible(cur *served) (defs []model.ToolDefinition, searchable bool) {
	if cur == nil {
		return nil, false
	}
	ss.mu.Lock()
	discovered := slices.Clone(ss.state.Tools)
	ss.mu.Unlock()
	for _, d := range ss.inScope(cur) {
		if d.Deferred && !slices.Contains(discovered, d.Ident) {
			searchable = true
			continue
		}
		defs = append(defs, d)
	}
	return defs, searchable
}

// inScope returns the catalog's definitions the session's tier may get,
// without the confirmation-gated tools the operator did not approve.
func (ss *session) inScope(cur *served) []model.ToolDefinition {
	var out []model.ToolDefinition
	for _, d := range cur.defs {
		t := cur.tools[d.Ident]
		if !ss.s.cfg.allows(ss.tier, t.Spec) || ss.s.gated(t.Spec) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// gated reports whether spec needs a confirmation the operator did not
// approve.
func (s *Server) gated(spec tools.ToolSpec) bool {
	return spec.Confirmation != nil && !slices.Contains(s.cfg.Approved, spec.Name)
}

// refresh makes the session's listing what it may call now; the SDK tells
// the client (notifications/tools/list_changed) when it changed.
func (ss *session) refresh() {
	ss.refreshing.Lock()
	defer ss.refreshing.Unlock()
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return
	}
	ss.mu.Unlock()
	cur := ss.s.snapshot()
	defs, searchable := ss.visible(cur)
	want := map[string]*sdk.Tool{}
	for _, d := range defs {
		want[d.Name] = sdkTool(d, cur.tools[d.Ident].Spec)
	}
	if searchable {
		want[SearchToolName] = searchTool()
	}
	ss.mu.Lock()
	var removed []string
	for name := range ss.listed {
		if want[name] == nil {
			removed = append(removed, name)
		}
	}
	var added []*sdk.Tool
	for name, t := range want {
		if old := ss.listed[name]; old == nil || !sameTool(old, t) {
			added = append(added, t)
		}
	}
	ss.listed = want
	ss.mu.Unlock()
	if len(removed) > 0 {
		ss.server.RemoveTools(removed...)
	}
	slices.SortFunc(added, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range added {
		if t.Name == SearchToolName {
			ss.server.AddTool(t, ss.search)
			continue
		}
		ss.server.AddTool(t, ss.caller(t.Name))
	}
}

// sdkTool is the MCP definition of a tool: its wire name, title,
// description and the schema the model fills (injected fields left out).
// The output schema is declared for tools whose result is returned as is;
// a bounded result carries its bounds beside the declared fields.
func sdkTool(d model.ToolDefinition, spec tools.ToolSpec) *sdk.Tool {
	t := &sdk.Tool{
		Name:        d.Name,
		Title:       d.Title,
		Description: d.Description,
		InputSchema: json.RawMessage(d.InputSchema),
		Annotations: &sdk.ToolAnnotations{Title: d.Title, ReadOnlyHint: spec.Exposure == tools.ExposureReadOnly},
	}
	if spec.Bounds == nil && isObjectSchema(spec.Result.Schema) {
		t.OutputSchema = json.RawMessage(spec.Result.Schema)
	}
	return t
}

// isObjectSchema reports whether schema is a JSON Schema of an object.
func isObjectSchema(schema json.RawMessage) bool {
	var s struct {
		Type any `json:"type"`
	}
	return len(schema) > 0 && json.Unmarshal(schema, &s) == nil && s.Type == "object"
}

// sameTool reports whether two definitions list the same.
func sameTool(a, b *sdk.Tool) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// searchTool is the search tool's definition.
func searchTool() *sdk.Tool {
	return &sdk.Tool{
		Name:        SearchToolName,
		Title:       "Search tools",
		Description: "Find tools by what you want to do or by name. The tools found are added to your tool list.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What you want to do, or a tool's name."}},"required":["query"],"additionalProperties":false}`),
		Annotations: &sdk.ToolAnnotations{Title: "Search tools", ReadOnlyHint: true},
	}
}
