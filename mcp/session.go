package mcp

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

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
	cred   credKey
	server *sdk.Server

	// refreshing serializes refreshes: each computes the listing from the
	// catalog it read and applies it whole.
	refreshing sync.Mutex

	mu sync.Mutex
	// state is the session's discovery state, kept as the runtime keeps a
	// conversation's: the tools its searches found and the searches spent
	// since its last call that ran.
	state  model.DiscoveryState
	listed map[string]listedTool // wire name → definition listed now
	closed bool
}

// newSession starts a session of a client of tier holding credential
// cred, on a slot admit reserved for it.
func (s *Server) newSession(tier tools.Exposure, cred credKey) *session {
	ss := &session{s: s, tier: tier, cred: cred, listed: map[string]listedTool{}}
	ss.server = sdk.NewServer(&sdk.Implementation{Name: s.cfg.Name, Version: s.cfg.Version}, s.serverOptions())
	s.addExtras(ss.server)
	ss.server.AddReceivingMiddleware(ss.unlisted)
	s.mu.Lock()
	s.sessions[ss] = true
	s.mu.Unlock()
	ss.refresh()
	return ss
}

// serverOptions are the options of every SDK server s makes.
func (s *Server) serverOptions() *sdk.ServerOptions {
	opts := &sdk.ServerOptions{
		Logger: s.sdkLog,
		// Tools, with list_changed, even before any is listed.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	}
	if v := s.cfg.ProtocolVersion; v != "" {
		opts.SupportedProtocolVersions = []string{v}
	}
	return opts
}

// watch drops the session once its SDK connection closes (the client's
// DELETE, the idle timeout, a failed handshake), or at once when it has
// none left.
func (ss *session) watch() {
	conns := slices.Collect(ss.server.Sessions())
	if len(conns) == 0 {
		ss.s.drop(ss)
		return
	}
	go func() {
		for _, c := range conns {
			_ = c.Wait()
		}
		ss.s.drop(ss)
	}()
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
	for _, d := range ss.s.listingOf(cur, ss.tier).defs {
		if d.Deferred && !slices.Contains(discovered, d.Ident) {
			searchable = true
			continue
		}
		defs = append(defs, d)
	}
	return defs, searchable
}

// inScope returns the catalog's definitions the session's tier may get,
// without the confirmation-gated tools the operator did not approve. The
// slice is shared by every session of the tier: callers do not modify it.
func (ss *session) inScope(cur *served) []model.ToolDefinition {
	return ss.s.listingOf(cur, ss.tier).defs
}

// gated reports whether spec needs a confirmation the operator did not
// approve.
func (s *Server) gated(spec tools.ToolSpec) bool {
	return spec.Confirmation != nil && !slices.Contains(s.cfg.Approved, spec.Name)
}

// listedTool is a tool definition as sessions list it, and its rendering,
// which tells whether two definitions list the same.
type listedTool struct {
	tool *sdk.Tool
	key  string
}

func newListedTool(t *sdk.Tool) listedTool {
	b, _ := json.Marshal(t)
	return listedTool{tool: t, key: string(b)}
}

// searchListed is the search tool's definition, rendered once.
var searchListed = newListedTool(searchTool())

// listing is what one tier may get of one catalog version: shared by the
// tier's sessions, built once per (tier, version) however many sessions
// there are.
type listing struct {
	defs []model.ToolDefinition
}

// listingOf returns tier's listing of cur, building it on first use.
func (s *Server) listingOf(cur *served, tier tools.Exposure) *listing {
	cur.mu.Lock()
	defer cur.mu.Unlock()
	if l := cur.listings[tier]; l != nil {
		return l
	}
	l := &listing{}
	for _, d := range cur.defs {
		t := cur.tools[d.Ident]
		if !s.cfg.allows(tier, t.Spec) || s.gated(t.Spec) {
			continue
		}
		l.defs = append(l.defs, d)
	}
	if cur.listings == nil {
		cur.listings = map[tools.Exposure]*listing{}
	}
	cur.listings[tier] = l
	s.listingBuilds.Add(1)
	return l
}

// refresh makes the session's listing what it may call now (in call-tool
// mode, its stable listing); the SDK tells the client
// (notifications/tools/list_changed) when it changed.
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
	var want map[string]listedTool
	if ss.s.cfg.CallTool {
		want = ss.stableListing(cur)
	} else {
		defs, searchable := ss.visible(cur)
		want = make(map[string]listedTool, len(defs)+1)
		for _, d := range defs {
			want[d.Name] = cur.listed[d.Name]
		}
		if searchable {
			want[SearchToolName] = searchListed
		}
	}
	ss.mu.Lock()
	var removed []string
	for name := range ss.listed {
		if _, ok := want[name]; !ok {
			removed = append(removed, name)
		}
	}
	var added []*sdk.Tool
	for name, t := range want {
		if old, ok := ss.listed[name]; !ok || old.key != t.key {
			added = append(added, t.tool)
		}
	}
	ss.listed = want
	ss.mu.Unlock()
	if len(removed) > 0 {
		ss.server.RemoveTools(removed...)
	}
	slices.SortFunc(added, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range added {
		switch {
		case t.Name == SearchToolName:
			ss.server.AddTool(t, ss.search)
		case t.Name == CallToolName && ss.s.cfg.CallTool:
			ss.server.AddTool(t, ss.callTool)
		default:
			ss.server.AddTool(t, ss.caller(t.Name))
		}
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
