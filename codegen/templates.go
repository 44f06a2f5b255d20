package codegen

import (
	"embed"
	"fmt"
)

// templateFiles are the generators' templates, one file each: a template
// reads as the code it produces, and a change to one diffs as one.
//
//go:embed templates/*.tpl
var templateFiles embed.FS

// templateText returns the text of templates/name. The files are embedded
// in the binary, so a missing one is a build mistake the tests catch.
func templateText(name string) string {
	b, err := templateFiles.ReadFile("templates/" + name)
	if err != nil {
		panic(fmt.Sprintf("codegen: template %s: %v", name, err))
	}
	return string(b)
}

var (
	// typesT renders the payload and result types of a toolset package.
	typesT = templateText("types.go.tpl")
	// identsT renders the tool idents and the toolset-wide functions.
	identsT = templateText("idents.go.tpl")
	// toolT renders one tool: its spec, descriptor and Decode function.
	toolT = templateText("tool.go.tpl")
	// toolsetT renders ToolSchemas(), the tools as the declarations a
	// provider publishes, and Toolset() and SchemaFingerprint, both derived
	// from it, so the declarations are written once. SchemaFingerprint
	// hashes a tool's declaration alone, leaving out the toolset-level
	// annotations (toolset description, version and the tags every tool
	// inherits), as tool search seed 000 prescribes: "Le helper généré
	// SchemaFingerprint(name) décrit toujours l'enregistrement du
	// fournisseur sans annotations facultatives au niveau du toolset",
	// while contract.Fingerprint(Toolset()) covers them.
	toolsetT = templateText("toolset.go.tpl")
	// agentT renders agent.go of an agent package: the definition, the
	// config and the registration function.
	agentT = templateText("agent.go.tpl")
	// agentToolsT renders agenttools.go of an agent export's agenttools
	// package: the exported toolset's registration as an agent toolset.
	agentToolsT = templateText("agenttools.go.tpl")
	// clientT renders client.go of an agent package.
	clientT = templateText("agent_client.go.tpl")
	// adaptersT renders the executor of a toolset whose tools use BindTo:
	// it decodes each call into the tool's payload, converts it to the
	// bound method's payload, calls the method, converts its result to the
	// tool's result and projects the server data declared with
	// FromMethodResultField.
	adaptersT = templateText("adapters.go.tpl")
	// mcpServerT renders a service's MCP package.
	mcpServerT = templateText("mcp_server.go.tpl")
	// mcpClientT renders mcp.go of an MCP-backed toolset's package: the
	// server it names and the registration binding the specs to an
	// upstream client.
	mcpClientT = templateText("mcp_client.go.tpl")
	// publishT renders publish.go: per registry, the serving helper and
	// its registration.
	publishT = templateText("publish.go.tpl")
	// quickstartT renders AGENTS_QUICKSTART.md.
	quickstartT = templateText("quickstart.md.tpl")
	// registryClientT renders a registry's constants and client
	// constructor. Without declared settings NewClient passes the caller's
	// options alone.
	registryClientT = templateText("registry_client.go.tpl")
	// completionsT renders completions.go of a service's completions
	// package: per completion, its type embedding *completion.Completion,
	// its value, the result's unexported schema and codec, and Example()
	// when the root result declares one.
	completionsT = templateText("completions.go.tpl")
	// verbatimT writes its data as it is: a file rendered before
	// templating (tool_schemas.json).
	verbatimT = templateText("verbatim.tpl")
)
