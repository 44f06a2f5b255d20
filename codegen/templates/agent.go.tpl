{{ $a := . }}
// Name is the name the agent registers under ("<service>.<agent>").
const Name = {{ printf "%q" .Name }}

// Description says what the agent does.
const Description = {{ printf "%q" .Expr.Description }}

{{- if .Uses }}

// Names of the toolsets the agent consumes: the keys of
// {{ .GoName }}AgentConfig.Executors{{ if .MCP }} (and of {{ .GoName }}AgentConfig.MCPClients for
// the toolsets an MCP server serves){{ end }}{{ if .AgentTools }}, but for the agent toolsets
// (another agent's export, whose calls run that agent), which take none{{ end }}.
const (
{{- range .Uses }}
	// {{ .Const }} is toolset {{ printf "%q" .Toolset.Expr.Name }}.
{{- if .MCP }}
	// MCP server {{ printf "%q" .Toolset.MCP.Server }} serves it ({{ .Toolset.MCP.Kind }}): its executor
	// is the upstream client of MCPClients[{{ .Const }}].
{{- end }}
{{- if .AgentTools }}
	// It is exported by {{ .Exporter }}, run as the tool
	// (agent-as-tool): Register{{ $a.GoName }}Agent registers it as an agent toolset
	// ({{ .AgentAlias }}.Registration()), with no executor, so that each call of
	// its tools runs agent {{ printf "%q" .AgentTools.Agent }} as a child run. Register that agent on
	// the same runtime before the first run, e.g. with its own
	// Register{{ .AgentTools.AgentGoName }}Agent.
{{- end }}
	{{ .Const }} = {{ printf "%q" .Toolset.Expr.Name }}
{{- end }}
)
{{- end }}

{{- if .RegistryNames }}

// Names of the registries the agent consumes, as the design declares them.
// Their tools are resolved from the registry at every planning step that
// can start work, never at registration: before the agent's first run,
// connect each on the runtime with rt.RegisterRegistry(name, client)
// (their generated client packages, gen/registries/<registry>, have the
// same Name and build the client with NewClient).
const (
{{- range .RegistryNames }}
	// {{ .Const }} is registry {{ printf "%q" .Registry.Name }} ({{ .ClientImport }}).
	{{ .Const }} = {{ printf "%q" .Registry.Name }}
{{- end }}
)
{{- end }}

// Definition returns the agent as the design declares it: its name,
// description, toolset uses (subsets and deferred tools){{ if .Registries }},
// registry sources{{ end }} and run policy.
// It has no planner, system prompt or model settings: Register{{ .GoName }}Agent
// adds those from its config. It neither takes a catalog nor touches the
// network; every call returns a fresh value.
func Definition() runtime.AgentRegistration {
	return runtime.AgentRegistration{
		Name: Name,
		Description: Description,
		Uses: []runtime.ToolsetUse{
		{{- range .Uses }}
			{
				Toolset: {{ .Const }},
			{{- if .Tools }}
				Tools: {{ strs .Tools }},
			{{- end }}
			{{- if .DeferAll }}
				DeferAll: true,
			{{- end }}
			{{- if .Deferred }}
				Deferred: {{ strs .Deferred }},
			{{- end }}
			},
		{{- end }}
		},
	{{- if .Registries }}
		Registries: []runtime.RegistryUse{
		{{- range .Registries }}
			{
				Registry: {{ .Const }},
			{{- if .Toolset }}
				Toolset: {{ printf "%q" .Toolset }},
			{{- end }}
			{{- if .Version }}
				Version: {{ printf "%q" .Version }},
			{{- end }}
			{{- if .DeferAll }}
				DeferAll: true,
			{{- end }}
			},
		{{- end }}
		},
	{{- end }}
		Policy: {{ .Policy }},
	}
}

// DeferredTools returns the idents of the tools the agent loads by search
// instead of advertising them, sorted.
{{- if .Registries }} It lists compiled tools only: the
// tools of a registry source are known at run time, and the source defers
// all of them or none (RegistryUse.DeferAll in Definition().Registries).
{{- end }}
func DeferredTools() []tools.Ident {
{{- if .Deferred }}
	return []tools.Ident{
	{{- range .Deferred }}
		{{ . }},
	{{- end }}
	}
{{- else }}
	return nil
{{- end }}
}

// {{ .GoName }}AgentConfig is what Register{{ .GoName }}Agent adds to Definition.
type {{ .GoName }}AgentConfig struct {
	// Planner decides each step of a run; nil means planner.NewStandard(),
	// the model-driven one.
	Planner planner.Planner
	// HistoryModel summarizes older turns when the run policy compresses
	// history; token-based thresholds need it to implement
	// model.TokenCounter. Leave it nil otherwise.
	HistoryModel model.Client
	// SystemPrompt is sent with every model request.
	SystemPrompt string
	// ModelID picks the agent's model by id (runtime.WithModelID); when
	// no model has that id, ModelClass applies.
	ModelID string
	// ModelClass picks the agent's model by class (the runtime's default
	// class when ModelID and ModelClass are both empty).
	ModelClass model.ModelClass
	// MaxTokens caps each model invocation's output (0: the model's
	// default).
	MaxTokens int
	// Search configures the discovery of deferred tools.
	Search model.SearchSettings
	// ModelOutput bounds each model response: bytes and nesting of one
	// call's arguments, calls per response (zero fields: the runtime's
	// defaults). A response beyond them is a failure the model corrects.
	ModelOutput runtime.OutputLimits
	// Executors run the calls of each consumed toolset, keyed by toolset
	// name (the Toolset… constants). Every consumed toolset{{ if .MCP }} but those
	// an MCP server serves (MCPClients){{ end }}{{ if .AgentTools }}{{ if .MCP }} and{{ else }} but{{ end }} the agent
	// toolsets (their calls run the exporting agent){{ end }} needs one; the
	// executor of a toolset another agent already registered on the same
	// runtime is not used.
{{- if .Registries }} Registry sources need none: the registry
	// routes their calls to its providers.
{{- end }}
	Executors map[string]toolcall.Executor
{{- if .MCP }}
	// MCPClients are the connections (upstream.Connect) to the MCP servers
	// serving the consumed MCP-backed toolsets, keyed by toolset name (the
	// Toolset… constants): the client executes the toolset's calls, and
	// registration refuses a server whose tools' input schemas differ from
	// the design's (*upstream.DriftError). Every MCP-backed toolset needs
	// one; the client of a toolset another agent already registered on the
	// same runtime is not used.
	MCPClients map[string]*upstream.Client
{{- end }}
}

// toolsets are the consumed toolsets with their generated specs{{ if .MCP }},
// except the MCP-backed ones (mcpToolsets){{ end }}{{ if .AgentTools }}{{ if .MCP }} and{{ else }},
// except{{ end }} the agent toolsets (agentToolsets){{ end }}.
var toolsets = []struct {
	name  string
	specs func() []tools.ToolSpec
}{
{{- range .Uses }}{{ if not (or .MCP .AgentTools) }}
	{ {{- .Const }}, {{ .Alias }}.Specs},
{{- end }}{{ end }}
}
{{- if .AgentTools }}

// agentToolsets are the consumed agent toolsets: other agents' exports,
// registered with their agenttools package's Registration, whose calls
// run the exporting agent.
var agentToolsets = []func() runtime.ToolsetRegistration{
{{- range .Uses }}{{ if .AgentTools }}
	{{ .AgentAlias }}.Registration,
{{- end }}{{ end }}
}
{{- end }}
{{- if .MCP }}

// mcpToolsets are the consumed MCP-backed toolsets with their generated
// registration, binding the specs to an upstream client.
var mcpToolsets = []struct {
	name     string
	register func(context.Context, *runtime.Runtime, *upstream.Client) error
}{
{{- range .Uses }}{{ if .MCP }}
	{ {{- .Const }}, {{ .Alias }}.Register},
{{- end }}{{ end }}
}
{{- end }}

// Register{{ .GoName }}Agent registers on rt every toolset the agent consumes,
// with its generated specs and its executor from cfg, then the agent. A
// toolset already registered on rt (by another agent's registration:
// runtime.ErrToolsetRegistered) is left as it is. It fails, registering
// nothing, when cfg lacks an executor{{ if .MCP }} or an MCP client{{ end }}.
{{- if .AgentTools }} It registers each agent toolset
// (another agent's export) itself, from its agenttools package, with no
// executor: its calls run the exporting agent, which must be registered on
// rt too, before the first run (e.g. with its own Register<Agent>Agent;
// before or after this one).
{{- end }}
{{- if .MCP }} An MCP-backed toolset is
// registered by its package's Register, which lists the server's tools
// (this reaches the network) and refuses schema drift.
{{- end }}
{{- if .Registries }} It registers nothing for the registry
// sources: connect each registry (the Registry… constants) with
// rt.RegisterRegistry before the agent's first run.
{{- end }}
func Register{{ .GoName }}Agent(ctx context.Context, rt *runtime.Runtime, cfg {{ .GoName }}AgentConfig) error {
	if rt == nil {
		return errors.New("{{ .Package }}: Register{{ .GoName }}Agent: runtime is nil")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("{{ .Package }}: Register{{ .GoName }}Agent: %w", err)
	}
	var errs []error
	for _, ts := range toolsets {
		if cfg.Executors[ts.name] == nil {
			errs = append(errs, fmt.Errorf("no executor for toolset %q: set {{ .GoName }}AgentConfig.Executors[%q]", ts.name, ts.name))
		}
	}
{{- if .MCP }}
	for _, ts := range mcpToolsets {
		if cfg.MCPClients[ts.name] == nil {
			errs = append(errs, fmt.Errorf("no MCP client for toolset %q: set {{ .GoName }}AgentConfig.MCPClients[%q] (upstream.Connect)", ts.name, ts.name))
		}
	}
{{- end }}
	if len(errs) > 0 {
		return fmt.Errorf("{{ .Package }}: register agent %q: %w", Name, errors.Join(errs...))
	}
	for _, ts := range toolsets {
		err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: ts.name, Specs: ts.specs(), Executor: cfg.Executors[ts.name]})
		if err != nil && !errors.Is(err, runtime.ErrToolsetRegistered) {
			return fmt.Errorf("{{ .Package }}: register agent %q: %w", Name, err)
		}
	}
{{- if .AgentTools }}
	for _, registration := range agentToolsets {
		err := rt.RegisterToolset(registration())
		if err != nil && !errors.Is(err, runtime.ErrToolsetRegistered) {
			return fmt.Errorf("{{ .Package }}: register agent %q: %w", Name, err)
		}
	}
{{- end }}
{{- if .MCP }}
	for _, ts := range mcpToolsets {
		err := ts.register(ctx, rt, cfg.MCPClients[ts.name])
		if err != nil && !errors.Is(err, runtime.ErrToolsetRegistered) {
			return fmt.Errorf("{{ .Package }}: register agent %q: %w", Name, err)
		}
	}
{{- end }}
	reg := Definition()
	reg.Planner = cfg.Planner
	reg.HistoryModel = cfg.HistoryModel
	reg.SystemPrompt = cfg.SystemPrompt
	reg.ModelID = cfg.ModelID
	reg.ModelClass = cfg.ModelClass
	reg.MaxTokens = cfg.MaxTokens
	reg.Search = cfg.Search
	reg.Policy.ModelOutput = cfg.ModelOutput
	return rt.RegisterAgent(reg)
}
