package discovery

import (
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// maxExtraRounds bounds the model rounds of one invocation beyond its
// budget: one to read the budget-exhausted answer, one to answer.
const maxExtraRounds = 2

// Turn is one invocation's discovery: the request's catalog, what was
// discovered before it, the turn's budget, and what its searches found.
// It is not safe for concurrent use: an invocation's rounds are sequential.
type Turn struct {
	e        *Engine
	toolName string
	index    *search.Index

	// defs are the request's definitions; deferred indexes the deferred
	// ones by search document name (the tool's ident), and wire maps their
	// wire names to those document names.
	defs     []model.ToolDefinition
	deferred map[string]int
	wire     map[string]string
	// inline are the wire names callable without searching.
	inline []string
	// loaded marks the deferred tools (by document name) callable now:
	// discovered before, found by this invocation, or forced.
	loaded map[string]bool

	budget, used int
	exhausted    bool
	rounds       int
	// callTool: found tools are never listed (model.SearchSettings.CallTool),
	// so a search answers them again when they match — the answer is the
	// only place their definitions are.
	callTool bool

	// This invocation's record, and how much of it TakeRecord returned.
	found    []tools.Ident
	searches int
	refused  bool
	taken    struct {
		tools, searches int
		refused         bool
	}
}

// Begin starts the discovery of one invocation of req. toolName is the
// search tool as the model calls it, for the answers that name it. Every
// deferred definition needs a search document keyed by its ident. The
// tools discovered before (req.DiscoveryState) are loaded, and so is a
// deferred tool req forces ([model.ToolChoiceTool]): adapters advertise it
// eagerly, so the model can call it without a search.
func (e *Engine) Begin(req *model.Request, toolName string) (*Turn, error) {
	state := req.DiscoveryState()
	t := &Turn{
		e:         e,
		toolName:  toolName,
		defs:      req.Tools,
		deferred:  make(map[string]int),
		wire:      make(map[string]string),
		loaded:    map[string]bool{},
		budget:    req.Search.SearchCap(),
		used:      state.Searches,
		exhausted: state.Exhausted,
		callTool:  req.Search.CallTool,
	}
	docs := make([]*model.ToolDefinition, 0, len(req.Tools))
	for i, d := range req.Tools {
		if !d.Deferred {
			t.inline = append(t.inline, d.Name)
			continue
		}
		if d.Search == nil {
			return nil, fmt.Errorf("discovery: deferred tool %q has no search document: give it one or advertise it inline", d.Name)
		}
		key := d.Search.Name
		if d.Ident != "" && string(d.Ident) != key {
			return nil, fmt.Errorf("discovery: the search document of %q is keyed %q, not by its ident %q", d.Name, key, d.Ident)
		}
		if _, dup := t.deferred[key]; dup {
			return nil, fmt.Errorf("discovery: deferred tools share the search document name %q", key)
		}
		t.deferred[key] = i
		t.wire[d.Name] = key
		docs = append(docs, &req.Tools[i])
	}
	if len(docs) > 0 {
		ix, err := e.index(docs)
		if err != nil {
			return nil, err
		}
		t.index = ix
	}
	for _, id := range state.Tools {
		t.loaded[string(id)] = true
	}
	if req.ToolChoice.Mode == model.ToolChoiceTool {
		t.Load(req.ToolChoice.Name)
	}
	return t, nil
}

// Load marks the deferred tool with wire name wire as callable without a
// search (a tool the provider loaded already, for one). It reports whether
// wire is a deferred tool of the request.
func (t *Turn) Load(wire string) bool {
	key, ok := t.wire[wire]
	if ok {
		t.loaded[key] = true
	}
	return ok
}

// Loaded reports whether the deferred tool with wire name wire is callable
// now.
func (t *Turn) Loaded(wire string) bool {
	key, ok := t.wire[wire]
	return ok && t.loaded[key]
}

// LoadedTools returns the deferred definitions callable now, sorted by
// wire name.
func (t *Turn) LoadedTools() []model.ToolDefinition {
	var out []model.ToolDefinition
	for key, i := range t.deferred {
		if t.loaded[key] {
			out = append(out, t.defs[i])
		}
	}
	slices.SortFunc(out, func(a, b model.ToolDefinition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Exhausted reports whether a search was refused for want of budget in
// this turn, this invocation included.
func (t *Turn) Exhausted() bool { return t.exhausted }

// NextRound counts one more model round of the invocation and returns
// [ErrSearchLoop] once a model has had its budget's worth of search rounds
// and the rounds to read the refusal and answer.
func (t *Turn) NextRound() error {
	t.rounds++
	if t.rounds > t.budget+maxExtraRounds {
		return fmt.Errorf("%w: the model kept calling %s after its search budget of %d was spent, instead of answering or calling a tool", ErrSearchLoop, t.toolName, t.budget)
	}
	return nil
}

// Record returns the invocation's discovery record — the tools its
// searches found, the searches answered, whether one was refused for
// budget — and whether there is anything to record.
func (t *Turn) Record() (model.Discovery, bool) {
	d := model.Discovery{Tools: slices.Clone(t.found), Searches: t.searches, Exhausted: t.refused}
	return d, len(d.Tools) > 0 || d.Searches > 0 || d.Exhausted
}

// TakeRecord returns what the invocation's searches recorded since the
// previous TakeRecord — new tools, searches answered, a refusal for budget
// — for an adapter that records each round's searches on the message
// holding their answers. ok is false when there is nothing new.
func (t *Turn) TakeRecord() (d model.Discovery, ok bool) {
	d = model.Discovery{Tools: slices.Clone(t.found[t.taken.tools:]), Searches: t.searches - t.taken.searches, Exhausted: t.refused && !t.taken.refused}
	t.taken.tools, t.taken.searches, t.taken.refused = len(t.found), t.searches, t.refused
	return d, len(d.Tools) > 0 || d.Searches > 0 || d.Exhausted
}
