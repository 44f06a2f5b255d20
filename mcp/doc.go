// Package mcp serves toolsets to outside agents over the Model Context
// Protocol, on the official Go SDK (github.com/modelcontextprotocol/go-sdk):
// streamable HTTP ([Server.Handler]) and stdio ([Server.ServeStdio]).
//
// What a client sees is the tool surface of the rest of Quiver:
//
//   - Tool names are the catalog's wire names. tools/list gives the inline
//     tools and the search tool (search_tools, answered by the discovery
//     core); a search that finds tools adds them to that session's list and
//     the client is told (notifications/tools/list_changed), as it is when
//     the [Source]'s catalog changes. MCP has no turns: a session's search
//     budget is spent by searches and restored by each other tools/call
//     ([Config.SearchBudget]). [Config.ExposeAll] lists every tool in scope at
//     once, for clients that cannot search.
//   - Call-tool mode ([Config.CallTool]) is for clients that list tools once
//     and never again, and keeps their prompt caches: tools/list gives the
//     inline tools, search_tools and call_tool, and a search never changes
//     it. The search answers with the found tools' inputSchema, and the
//     client calls them through call_tool ({"name": "<tool>", "arguments":
//     {…}}), which checks, admits and runs the call as a direct tools/call
//     of that tool. Only a catalog change of the inline tools changes the
//     list.
//   - A client's scope is a tier ([tools.Exposure]), given by its bearer
//     credential: read_only ⊂ staging ⊂ full. A tool is served to a tier at
//     or above its declared exposure; "excluded" tools to none; tools
//     without one only when [Config.Undeclared] says which tier they need.
//     A call outside the caller's tier is refused before anything runs.
//   - tools/call canonicalizes and validates the arguments with the tool's
//     codec (violations come back as a tool error the model can act on),
//     runs the tool, validates its result, projects its bounds, drops
//     server data, and answers with text and structuredContent. Tools that
//     need a human's confirmation are refused unless [Config.Approved] names
//     them: MCP has no way to ask.
//
// The [Source] says what is served: [Toolsets] for compiled or runtime-defined
// toolsets with their executors, [Registry] for a registry's catalog kept
// current through its change feed. Goa's generated JSON-RPC transport for
// MCP services is not mounted: this package is the MCP server.
package mcp
