// Package codegen is Quiver's goa gen plugin: it turns the evaluated Quiver
// design (package expr) into Go code and data files under gen/.
//
// # Enabling the plugin
//
// The plugin registers itself with Goa in this package's init, under the
// name "quiver" for the "gen" command. The dsl package imports this
// package for that side effect, so a design that dot-imports Quiver's DSL
// enables code generation without any other import:
//
//	import (
//		. "goa.design/goa/v3/dsl"
//		. "github.com/quiver-go/quiver/dsl"
//	)
//
// This package depends on the expressions (package expr), never on dsl, so
// the import makes no cycle.
//
// goa gen then calls Generate after Goa's own generators.
//
// # What is generated
//
// For every toolset whose tools are declared locally, a package holding the
// files below. A top-level toolset's package is gen/toolsets/<toolset>; a
// toolset declared inline in an agent's Use has its package under the
// agent's, gen/agents/<service>/<agent>/toolsets/<toolset>; one declared
// inline in an Export under the exporting agent's,
// gen/agents/<service>/<agent>/exports/<toolset>, or, exported by a
// service, gen/<service>/exports/<toolset>. Two distinct toolsets sharing a
// name (the prefix of their idents and their runtime registration key) or a
// package directory fail generation. Each package holds:
//   - types.go: the typed payload and result structs of each tool (Goa's
//     type generation, JSON tags with the design's attribute names);
//   - specs.go: a typed Ident constant per tool, <Tool>Spec() returning a
//     fresh tools.ToolSpec literal (JSON Schemas and the search document are
//     literals computed at generation time: nothing is analysed at run
//     time), <Tool>Tool() typed descriptors, Decode<Tool> composing the
//     validating codec and injection (tools.Decode), Specs(), RequiredLabels
//     and Toolset() (the contract.ToolsetDeclaration a provider publishes);
//   - tool_schemas.json: the toolset in the catalog-file format that
//     quiver search reads (package tools/catalogfile);
//   - publish.go, when a service's Export publishes the toolset with
//     PublishTo: per registry, PublishTo<Registry>(ctx, client, revision,
//     exec), which serves the toolset to the registry with registry.Serve,
//     and <Registry>Registration(revision), the registry.Registration it
//     serves (Toolset() with the export's description and tags). A toolset
//     is published to one registry by one export at most. An agent's
//     Export is not published: it runs the agent as the tool
//     (agent-as-tool, a child workflow), which a registry cannot carry, and
//     validation rejects PublishTo there.
//
// A top-level toolset an MCP server serves gets the same package, with
// mcp.go added: a FromExternalMCP toolset gen/toolsets/<toolset>, from its
// declared tools; a FromMCP toolset the package of its server's method
// tools (below) when it is named after the server, as by default, so its
// types are the service's, and gen/toolsets/<toolset> from the same
// methods when Toolset names it otherwise. mcp.go holds MCPServer and
// MCPToolset (the provider as the design names it),
// DeclaredToolset(ctx, client), binding Specs() to an
// *upstream.Client (package mcp/upstream: a server listing a tool with
// another input schema is refused, *upstream.DriftError), and
// Register(ctx, rt, client), which registers the bound toolset on the
// runtime with the client as its executor. The transport (stdio command
// or streamable HTTP URL) is the client's, given at run time, never in
// the design; Deferred works on these toolsets as on any other.
//
// A toolset declared with FromRegistry has no package: its tools come from
// the registry at run time.
//
// Every toolset an agent exports (Export in an Agent, inline or a
// top-level toolset) whose package is generated also gets an agenttools
// package, gen/agents/<service>/<agent>/agenttools/<toolset> (named like
// the toolset's package), holding agenttools.go: Name (the toolset's
// name), Agent (the exporting agent's registered name, "<service>.<agent>")
// and Registration(), the runtime.ToolsetRegistration of the toolset as an
// agent toolset — its Specs(), Agent set, no executor — so that every call
// of one of its tools runs the exporting agent as a child run (the call's
// canonical payload its user message, its final answer the call's result).
// The exporting agent must be registered on the same runtime before the
// first run that calls the tools. The toolset packages provide no
// call-hint decoders, so DecodePayload and DecodeResult stay nil. A
// service's exports get none: only an agent runs as a tool.
//
// For every agent whose uses all consume generated toolset packages
// (top-level or inline local toolsets, top-level MCP-backed toolsets, or
// another agent's export of one through AgentToolset) or registry sources (Use(registry), or a
// FromRegistry toolset), a package gen/agents/<service>/<agent> holding:
//   - agent.go: Name ("<service>.<agent>"), Definition() (the
//     runtime.AgentRegistration of the design without a planner: uses with
//     subsets and sorted deferred tool names; the registry sources as
//     runtime.RegistryUse values in declaration order — registry name, the
//     registry toolset and its pinned version for a FromRegistry toolset,
//     DeferAll from Deferred(), a registry source deferring all its tools
//     or none; the run policy as a literal), a Registry<Name> constant per
//     consumed registry, DeferredTools() (sorted idents of compiled tools
//     only: registry tools are known at run time), <Agent>AgentConfig
//     (planner, history model, prompt, model settings and an executor per
//     compiled toolset but the agent toolsets) and Register<Agent>Agent,
//     which registers the consumed toolsets with their
//     generated Specs() (skipping those already registered on the runtime,
//     told apart with errors.Is(err, runtime.ErrToolsetRegistered), never
//     by the error's text) and then the agent. An MCP-backed toolset
//     takes no executor: the config's MCPClients gives its
//     *upstream.Client, and Register<Agent>Agent registers it with the
//     toolset package's Register (which lists the server's tools: the one
//     registration that reaches the network). An AgentToolset use
//     imports the exporting agent's toolset package (for its idents) and
//     its agenttools package: Register<Agent>Agent registers the
//     agenttools Registration() itself (skipping it when already
//     registered) and takes no executor for it; the exporting agent,
//     registered on the same runtime before the first run (e.g. with its
//     own Register<Agent>Agent), answers each call as a child run
//     (agent-as-tool). Register<Agent>Agent registers
//     nothing for registry sources: the application connects each registry
//     with rt.RegisterRegistry(name, client) before the first run
//     (gen/registries/<registry> has its Name and NewClient); nothing
//     generated takes a catalog, and nothing but the registration of an
//     MCP-backed toolset reaches the network before a run;
//   - client.go: NewClient(rt) with Run, Start, StartOneShot and Continue
//     bound to the agent.
//
// When any agent is generated, AGENTS_QUICKSTART.md at the root of the
// output directory lists the toolsets (and the helpers publishing them),
// the completions, the agents, their toolsets, registry sources and
// deferred tools, and how to connect registries, register and run the
// agents, unless the API says DisableAgentDocs().
//
// Each Registry declaration gives a package gen/registries/<registry>: its
// Name, URL and APIVersion, the Credential scheme its Security names, and
// NewClient, a registry.Client sending that credential.
//
// A service declaring MCP(...) gives a package gen/<service>/mcpserver:
// the server's Name, Version and ProtocolVersion, Prompts() (its static
// prompts), Resources(svc) (its Resource methods, read through the
// service's implementation) and, when methods are tools, Toolset(svc):
// a toolset named after the server, generated under the package like any
// toolset with its tools bound to the methods (payload as arguments,
// result as result), and run by its adapter executor — for mcp.Config.
//
// A service declaring Completion(...) gives a package
// gen/<service>/completions (package completions) holding:
//   - types.go: the Go types of its completions' results — a user type
//     under its design name, an inline object as <Completion>Result —
//     with the user types and unions they refer to, generated as the
//     toolset packages' types are;
//   - completions.go: per completion, a type <Completion>Completion
//     embedding *completion.Completion[T] and a value <Completion> of it
//     (completion "draft_from_transcript" gives DraftFromTranscript, whose
//     Complete and StreamComplete return a *Draft and a
//     *completion.Streamer[*Draft]), built from the completion's name,
//     description and the result's JSON Schema; the schema, its codec and
//     the example are unexported, and no exported function decodes an
//     answer: a value exists only once package completion has validated a
//     whole answer. Example() returns the root result's declared example
//     when it has one.
//
// A completion's schema is closed like a payload's (the model writes the
// answer). Generation fails, naming the design locations, when a
// completion's Go names are taken — by another completion of the service
// (names differing only in '_', '-' or case) or by a type of the package
// — or when the declared example breaks the schema.
//
// A Passthrough is generated as a BindTo adapter in the adapters package of
// the exported toolset (see passthrough.go). The publications of MCP-backed
// toolsets generate nothing yet; the design's warnings (expr.RootExpr.Warnings, and
// one per skipped agent) say so and Generate prints them to standard
// error.
//
// # Templates
//
// Each generated file is rendered from a template in templates/, one file
// per template (agent.go.tpl, tool.go.tpl, …), embedded with go:embed and
// named in templates.go; the guard in internal/sourceguard fails when a
// template is written as a Go string again.
//
// # Invariants
//
// Every spec is built as a tools.ToolSpec at generation time and validated
// with ToolSpec.Validate before it is rendered, so a design whose schemas
// or templates do not compile fails goa gen instead of panicking at run
// time. The generated search document equals
// search.NewDocument(spec.SearchSource(keywords...)) for the rendered spec.
// Generated functions return fresh values on every call.
//
// Payload schemas are closed: the root object and every object inside it
// ($defs of user types included) say "additionalProperties": false, both
// in the model-facing schema and in the full one with injected fields
// (ToolSchemas), unless Goa already gave additionalProperties (a MapOf).
// A tool declaring OpenArgs gets "additionalProperties": true at the root
// only. Result and server data schemas are left open.
package codegen
