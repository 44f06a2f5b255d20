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
// # Names
//
// An upstream tool keeps its own name as our tool name when that
// name is a valid tool name ([tools.NewIdent]: no dot, no whitespace or
// control character, valid UTF-8). MCP allows dots in tool names and we do
// not (an ident splits at its last dot), so each '.' becomes '_'
// ("files.read" is our "files_read"); the toolset keeps the mapping
// ([Toolset.Names]) and [Client.Execute] sends the server's name, so the
// model and the server each read their own name for the same tool. A name
// that is still invalid after that, or that would take the name of
// another listed tool (a server listing both "a.b" and "a_b": "a_b" keeps
// its name and "a.b" is left out), is skipped and reported
// ([Toolset.Skipped]), never renamed otherwise. Wire names (what a
// provider reads, at most 64 characters of [a-zA-Z0-9_-]) are the
// catalog's business: it maps every ident to one reversibly.
//
// # Results
//
// A result is the server's structuredContent when it sends one; else a
// single text item holding a JSON object or array is that JSON, a single
// other text item is {"text": "…"}, and any other content is
// {"content": [the items as MCP spells them]}. isError is a
// [toolcall.KindToolError] failure quoting the server's text; see
// [Client.Execute] for every failure.
//
// # Requests from the server
//
// A refused server request reads, on the server's side:
//
//	the client of server "files" refuses sampling (sampling/createMessage): the application installed no handler for it (upstream.Handlers.Sampling)
package upstream
