// Package upstream consumes MCP servers: it owns the client of one
// upstream server ([Connect]: stdio or streamable HTTP, on the official Go
// SDK), which is the [toolcall.Executor] of the toolsets built on it, and
// those toolsets — listed at run time ([Client.ListedToolset], compiled
// with [contract.CompileToolset]) or declared in a design with FromMCP or
// FromExternalMCP ([Client.DeclaredToolset], which refuses a toolset whose
// schemas drifted: [DriftError]).
//
// Invariants:
//   - Every call is bounded: by its context's deadline, else
//     [Config.CallTimeout]; every result by [Config.MaxResultBytes];
//     connecting by [Config.InitializeTimeout].
//   - A server that dies fails the calls in flight with
//     [toolcall.KindOutcomeUnknown] (they may have run) and the next call
//     reconnects, waiting [Config.MinBackoff] to [Config.MaxBackoff]
//     between attempts; a server that cannot be reached fails a call with
//     [toolcall.KindUnavailable] (nothing ran).
//   - A tool is in a toolset whole or reported in [Toolset.Skipped]; its
//     name is the server's, or the server's with dots made underscores
//     ([ToolName]), and the client sends the server's name back.
//   - Requests the server sends its client (sampling, elicitation, roots)
//     are refused with an error naming the missing [Handlers] field unless
//     the application installed that handler.
//
// A refused server request reads, on the server's side:
//
//	the client of server "files" refuses sampling (sampling/createMessage): the application installed no handler for it (upstream.Handlers.Sampling)
package upstream
