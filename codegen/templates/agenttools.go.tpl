// Name is the name of toolset {{ printf "%q" .Toolset.Expr.Name }}, the key of its registration
// on the runtime (its tools' idents are in {{ .Toolset.Import }}).
const Name = {{ printf "%q" .Toolset.Expr.Name }}

// Agent is the registered name ("<service>.<agent>") of the agent that
// exports the toolset: every call of one of its tools runs that agent.
const Agent = {{ printf "%q" .Agent }}

// Registration returns the toolset as an agent toolset (agent-as-tool): its
// generated specs with Agent set and no executor. On a runtime, every call
// of one of its tools runs agent {{ printf "%q" .Agent }} as a child run: the call's
// canonical JSON payload is the child's user message, the child's final
// answer the call's result, validated against the tool's result contract.
// Register that agent on the same runtime before the first run that calls
// the tools, e.g. with Register{{ .AgentGoName }}Agent of {{ .AgentImport }}.
// Every call returns a fresh value.
func Registration() runtime.ToolsetRegistration {
	return runtime.ToolsetRegistration{
		Name:  Name,
		Specs: toolset.Specs(),
		Agent: Agent,
	}
}
