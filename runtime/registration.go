package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// The executor and call types of one tool call live in package toolcall,
// which the runtime, the MCP server and registry providers share: one
// executor value serves a toolset in process, over MCP and through
// registry.Serve. These aliases keep the names generated code uses.
type (
	// ToolExecutor runs the calls of one toolset ([toolcall.Executor]).
	ToolExecutor = toolcall.Executor
	// ToolExecutorFunc adapts a function to [ToolExecutor].
	ToolExecutorFunc = toolcall.ExecutorFunc
	// ToolCall is one admitted call handed to an executor ([toolcall.Call]).
	ToolCall = toolcall.Call
)

// ToolsetRegistration registers a toolset's specs and its executor.
type ToolsetRegistration struct {
	// Name is the toolset name: the part of each spec's ident before the
	// last dot.
	Name string
	// Specs are the tools' contracts.
	Specs []tools.ToolSpec
	// Executor runs the calls. Leave it nil for an agent toolset.
	Executor toolcall.Executor
	// Agent, set instead of Executor, makes the toolset an agent toolset
	// (agent-as-tool): every call of one of its tools runs the registered
	// agent of that name as a child run — the call's canonical payload is
	// the child's user message, its final answer the call's result,
	// validated against the tool's result contract. The agent may be
	// registered before or after the toolset; an agent that uses, through
	// agent toolsets, a toolset of its own (a cycle) is refused.
	Agent string
	// DecodePayload, when set, decodes a payload into the typed value that
	// call-hint templates render (generated code supplies it); without it
	// templates see the JSON keys.
	DecodePayload func(ident tools.Ident, payload json.RawMessage) (any, error)
	// DecodeResult is the same for result-hint templates.
	DecodeResult func(ident tools.Ident, result json.RawMessage) (any, error)
}

// Toolset is the registration's tools and executor, as an MCP server
// takes them (mcp.Toolsets).
func (r ToolsetRegistration) Toolset() toolcall.Toolset {
	return toolcall.Toolset{Name: r.Name, Specs: r.Specs, Executor: r.Executor}
}

type toolsetEntry struct {
	reg ToolsetRegistration
}

type toolEntry struct {
	spec    tools.ToolSpec
	toolset *toolsetEntry
	// continued is set when another tool of the toolset continues with
	// this one (BoundsSpec.ContinueWith): its pages keep their cursor in
	// the runtime.
	continued bool
}

// ErrToolsetRegistered is wrapped by [Runtime.RegisterToolset]'s error for a
// name registered already: toolset names are unique per runtime. Generated
// registration code matches it ([errors.Is]) to share a toolset between the
// agents that consume it.
var ErrToolsetRegistered = errors.New("runtime: toolset already registered")

// RegisterToolset registers a toolset. Every spec must be valid (a
// non-empty title included — generated code always supplies one) and
// belong to the toolset; nothing is registered when any is not. A name
// registered already fails with [ErrToolsetRegistered] alone (the specs are
// not examined) when both registrations are run alike — by an executor, or
// by the same agent; otherwise it fails with an error naming both, which
// does not match ErrToolsetRegistered.
func (rt *Runtime) RegisterToolset(reg ToolsetRegistration) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if prev, dup := rt.toolsets[reg.Name]; dup {
		if prev.reg.Agent != reg.Agent {
			// Not the same toolset registered twice (which generated code
			// skips) but two toolsets of one name: one would silently
			// take the other's calls.
			return fmt.Errorf("runtime: register toolset %q: a toolset of that name is registered already, %s, and this one %s: one name is one toolset; rename the export or the toolset", reg.Name, toolsetKind(prev.reg.Agent), toolsetKind(reg.Agent))
		}
		return fmt.Errorf("%w: %q", ErrToolsetRegistered, reg.Name)
	}
	var errs []error
	if reg.Name == "" {
		errs = append(errs, errors.New("toolset name is empty"))
	}
	switch {
	case reg.Executor == nil && reg.Agent == "":
		errs = append(errs, errors.New("executor is nil: give the toolset an Executor, or the Agent its calls run (an agent toolset)"))
	case reg.Executor != nil && reg.Agent != "":
		errs = append(errs, fmt.Errorf("both Executor and Agent (%q) are set: an agent toolset's calls run its agent; leave Executor nil", reg.Agent))
	}
	seen := map[tools.Ident]bool{}
	for i, s := range reg.Specs {
		if err := s.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("spec %d: %w", i, err))
			continue
		}
		if s.Name.Toolset() != reg.Name {
			errs = append(errs, fmt.Errorf("tool %s does not belong to toolset %q", s.Name, reg.Name))
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("tool %s is listed twice", s.Name))
		}
		seen[s.Name] = true
	}
	if len(reg.Specs) == 0 {
		errs = append(errs, errors.New("toolset has no tools"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("runtime: register toolset %q: %w", reg.Name, errors.Join(errs...))
	}
	e := &toolsetEntry{reg: reg}
	e.reg.Specs = make([]tools.ToolSpec, len(reg.Specs))
	for i, s := range reg.Specs {
		e.reg.Specs[i] = s.Clone()
		continued := slices.ContainsFunc(reg.Specs, func(o tools.ToolSpec) bool {
			return o.Bounds != nil && o.Bounds.ContinueWith == s.Name.Tool()
		})
		rt.tools[s.Name] = &toolEntry{spec: e.reg.Specs[i], toolset: e, continued: continued}
	}
	rt.toolsets[reg.Name] = e
	if cycle := rt.agentCycleLocked(); cycle != "" {
		delete(rt.toolsets, reg.Name)
		for _, spec := range e.reg.Specs {
			delete(rt.tools, spec.Name)
		}
		return fmt.Errorf("runtime: register toolset %q: its agent %q would call itself through agent toolsets: %s; break the cycle", reg.Name, reg.Agent, cycle)
	}
	return nil
}

// toolsetKind says what runs a toolset's calls, for errors.
func toolsetKind(agent string) string {
	if agent == "" {
		return "run by its executor"
	}
	return fmt.Sprintf("running agent %q", agent)
}

// ToolsetUse is an agent's consumption of a toolset.
type ToolsetUse struct {
	// Toolset is the registered toolset name.
	Toolset string
	// Tools subsets the toolset by bare tool name (nil: every tool).
	Tools []string
	// DeferAll loads every consumed tool by search instead of advertising it.
	DeferAll bool
	// Deferred names the consumed tools (bare names) loaded by search.
	// Deferral belongs to this consumer: other agents using the toolset are
	// unaffected.
	Deferred []string
}

// AgentRegistration registers an agent.
type AgentRegistration struct {
	// Name identifies the agent.
	Name string
	// Description says what the agent does.
	Description string
	// SystemPrompt is sent with every model request.
	SystemPrompt string
	// Planner decides each step; nil means planner.NewStandard(), the
	// model-driven planner.
	Planner planner.Planner
	// Uses are the toolsets the agent consumes.
	Uses []ToolsetUse
	// Registries are the registry sources the agent consumes, resolved at
	// each planning step that can start work.
	Registries []RegistryUse
	// Policy is the run policy.
	Policy RunPolicy
	// ModelID or [AgentRegistration.ModelClass] pick the agent's model (the
	// default class when both are empty).
	ModelID    string
	ModelClass model.ModelClass
	// MaxTokens caps each model invocation's output.
	MaxTokens int
	// Search configures discovery of deferred tools.
	Search model.SearchSettings
	// HistoryModel summarizes history under a compression policy; token
	// thresholds need it to implement [model.TokenCounter].
	HistoryModel model.Client
}

type agentEntry struct {
	reg      AgentRegistration
	tools    []tools.Ident // every tool the agent consumes, sorted
	toolsets []string      // the compiled toolsets it consumes
	deferred map[tools.Ident]bool
}

// RegisterAgent registers an agent after checking its policy and tools.
func (rt *Runtime) RegisterAgent(reg AgentRegistration) error {
	var errs []error
	if reg.Name == "" {
		errs = append(errs, errors.New("agent name is empty"))
	}
	if reg.Planner == nil {
		reg.Planner = planner.NewStandard()
	}
	_, counts := reg.HistoryModel.(model.TokenCounter)
	if err := reg.Policy.validate(reg.HistoryModel != nil, counts); err != nil {
		errs = append(errs, err)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if _, dup := rt.agents[reg.Name]; dup {
		errs = append(errs, fmt.Errorf("agent %q is already registered", reg.Name))
	}
	var idents []tools.Ident
	deferred := map[tools.Ident]bool{}
	for _, u := range reg.Uses {
		if u.DeferAll && len(u.Deferred) > 0 {
			errs = append(errs, fmt.Errorf("toolset %q: DeferAll and named Deferred tools cannot be combined in one use", u.Toolset))
		}
		for i, name := range u.Deferred {
			if name == "" || slices.Contains(u.Deferred[:i], name) {
				errs = append(errs, fmt.Errorf("toolset %q: deferred tool names must be non-empty and unique (got %q)", u.Toolset, name))
			}
		}
		ts, ok := rt.toolsets[u.Toolset]
		if !ok {
			errs = append(errs, fmt.Errorf("toolset %q is not registered: register it before the agent", u.Toolset))
			continue
		}
		for _, name := range slices.Concat(u.Tools, u.Deferred) {
			if !slices.ContainsFunc(ts.reg.Specs, func(s tools.ToolSpec) bool { return s.Name.Tool() == name }) {
				errs = append(errs, fmt.Errorf("toolset %q has no tool %q (use the bare tool name)", u.Toolset, name))
			}
		}
		for _, s := range ts.reg.Specs {
			if u.Tools != nil && !slices.Contains(u.Tools, s.Name.Tool()) {
				continue
			}
			if slices.Contains(idents, s.Name) {
				errs = append(errs, fmt.Errorf("tool %s is consumed twice", s.Name))
				continue
			}
			idents = append(idents, s.Name)
			if u.DeferAll || slices.Contains(u.Deferred, s.Name.Tool()) {
				deferred[s.Name] = true
			}
		}
	}
	errs = append(errs, checkRegistryUses(reg.Registries)...)
	errs = append(errs, searchNameClashes(reg.Search, idents, len(deferred) > 0)...)
	if client, err := rt.modelForLocked(reg.ModelID, reg.ModelClass); err == nil {
		// The client is known now: a model that cannot search the deferred
		// tools fails here, not at its first request. Otherwise Start
		// checks it.
		if err := checkSearch(client, reg.Search, deferredNames(deferred, reg.Registries)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("runtime: register agent %q: %w", reg.Name, errors.Join(errs...))
	}
	slices.Sort(idents)
	var toolsets []string
	for _, u := range reg.Uses {
		toolsets = append(toolsets, u.Toolset)
	}
	rt.agents[reg.Name] = &agentEntry{reg: reg, tools: idents, toolsets: toolsets, deferred: deferred}
	if cycle := rt.agentCycleLocked(); cycle != "" {
		delete(rt.agents, reg.Name)
		return fmt.Errorf("runtime: register agent %q: it would call itself through agent toolsets: %s; break the cycle", reg.Name, cycle)
	}
	return nil
}

// checkSearch reports whether client can discover the deferred tools
// under settings (model.CheckSearch); nil when there are none. The error
// names the tools and, through the client's answer, the fix.
func checkSearch(client model.Client, settings model.SearchSettings, deferred []string) error {
	if len(deferred) == 0 {
		return nil
	}
	err := model.CheckSearch(client, settings)
	if err == nil {
		return nil
	}
	list := strings.Join(deferred[:min(len(deferred), 3)], ", ")
	if len(deferred) > 3 {
		list += fmt.Sprintf(" and %d more", len(deferred)-3)
	}
	return fmt.Errorf("deferred tools %s need a model that searches them (or defer none): %w", list, err)
}

// deferredNames names what an agent loads by search: its deferred
// compiled tools, sorted, then the tools of its deferred registry sources.
func deferredNames(deferred map[tools.Ident]bool, uses []RegistryUse) []string {
	var names []string
	for _, id := range slices.Sorted(maps.Keys(deferred)) {
		names = append(names, string(id))
	}
	for _, u := range uses {
		if u.DeferAll {
			names = append(names, "the tools of "+u.String())
		}
	}
	return names
}

// agent returns a registered agent. Its error has no package prefix:
// public callers add it, workflow errors get it once from Wait.
func (rt *Runtime) agent(name string) (*agentEntry, error) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	a, ok := rt.agents[name]
	if !ok {
		return nil, fmt.Errorf("agent %q is not registered", name)
	}
	return a, nil
}

// tool returns a registered tool.
func (rt *Runtime) tool(id tools.Ident) (*toolEntry, bool) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	t, ok := rt.tools[id]
	return t, ok
}

// requiredLabels returns the labels an agent's tools need, sorted.
func (rt *Runtime) requiredLabels(a *agentEntry) []string {
	var out []string
	for _, id := range a.tools {
		if t, ok := rt.tool(id); ok {
			for _, l := range t.spec.RequiredLabels {
				if !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// nativeSearchToolName is the name OpenAI's client-executed search goes by;
// refusals of undiscovered tools tell the model to call it.
const nativeSearchToolName = "tool_search"

// searchNameClashes reports the agent's tools whose wire name could be the
// name of the agent's search tool: a model calling that name would reach
// the tool instead of the search, or the search instead of the tool. A
// tool's wire name is its bare name unless another tool of the same step
// shares it, so both forms are checked. Native search goes by tool_search
// (OpenAI) or, for a client-side search tool, by Search.ToolName. In
// call-tool mode (Search.CallTool) model.CallToolName is taken too.
func searchNameClashes(s model.SearchSettings, idents []tools.Ident, deferred bool) []error {
	names := []string{s.SearchToolName()}
	if s.Mode != model.SearchPortable {
		if !deferred {
			return nil
		}
		names = []string{nativeSearchToolName}
		if s.ToolName != "" {
			names = append(names, s.ToolName)
		}
	}
	var errs []error
	all, _ := tools.NewWireNames(idents)
	for _, id := range idents {
		alone, err := tools.NewWireNames([]tools.Ident{id})
		if err != nil {
			continue // an invalid ident is reported by the toolset's registration
		}
		bare, _ := alone.Wire(id)
		wire := bare
		if all != nil {
			wire, _ = all.Wire(id)
		}
		for _, name := range names {
			if bare == name || wire == name {
				errs = append(errs, fmt.Errorf("tool %s is called %q on the wire, the name of the agent's search tool: rename the tool or set Search.ToolName", id, name))
			}
		}
		if s.CallTool && (bare == model.CallToolName || wire == model.CallToolName) {
			// In call-tool mode the model calls found tools through
			// call_tool: a tool of that name would take those calls.
			errs = append(errs, fmt.Errorf("tool %s is called %q on the wire, the name of the function found tools are called through (Search.CallTool): rename the tool or turn Search.CallTool off", id, model.CallToolName))
		}
	}
	return errs
}
