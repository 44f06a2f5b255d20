// Package bench measures the MCP server under load, in one process: an
// mcp.Server serving the records example's workspace toolset
// (catalogs.WorkspaceToolset, executed by the in-memory demo workspace of
// internal/workspacedemo) over streamable HTTP on a loopback port, and N
// client sessions of the official Go SDK, each looping tools/list,
// search_tools and a tools/call of a cheap read tool (countRows) until the
// time is up, optionally pausing between rounds (Config.Pause). `quiver
// bench mcp` runs it and prints the figures; BenchmarkMCPCall runs it
// under `go test -bench` for profiles.
//
// Two peers run in the same Run, with the same concurrency:
//
//   - In-process: the executor the server's tools/call runs, called with
//     the call the server would hand it (the canonical payload, the spec,
//     call metadata). The overhead reported is the HTTP tools/call's p50
//     minus this one's: everything between an MCP client's CallTool and
//     the tool — the client SDK, JSON-RPC, HTTP and server-sent events on
//     loopback, the server's credential, scope and admission checks, the
//     payload's canonicalization and validation, the result's validation
//     and shaping.
//   - In memory: the same rounds by sessions on the SDK's in-memory
//     transport (mcp.Server.ServeTransport, JSON-RPC on a pipe), served by
//     a second mcp.Server over the same executor: the server's and the
//     SDK's share of the overhead without HTTP. Its sessions ask for the
//     protocol revision the HTTP sessions negotiated.
//
// After the loaded phase, one session on each path and one peer goroutine
// repeat it one request at a time (Config.OneAtATime): the overhead with
// no queue in front of it. Under load the clients and the server share the
// machine's cores, and with N requests in flight the latency is mostly
// queueing (N / requests per second).
//
// Invariants:
//   - Nothing on the measured path is stubbed: the server is mcp.New's,
//     served by net/http on a real loopback listener, with a full-tier
//     bearer credential checked on every request; the clients are the
//     SDK's StreamableClientTransport sessions, standalone SSE stream
//     included, sharing one http.Transport.
//   - Every request is checked after its clock stopped: a transport error
//     (the SDK's client-side "rejected by transport" included), a JSON-RPC
//     error answer, a tool error (isError) or an answer without what it
//     must hold (the search tool listed; countRows found by the first
//     search, and named as callable by the next ones, which find nothing
//     new; countRows listed once found; the 12 late orders counted) is an
//     error, counted by kind of request and by class.
//   - Every session, the HTTP server and both MCP servers are closed
//     before Run returns, also when it fails; a connection still open
//     after the shutdown's timeout is an error.
package bench
