// Package upstream consumes MCP servers: a client of one upstream server
// (stdio or streamable HTTP, on the official Go SDK) that is a
// toolcall.Executor, reconnecting after the server dies, and the toolsets
// built on it — listed at run time (ListedToolset) or declared in a design
// with FromMCP or FromExternalMCP (DeclaredToolset, which refuses tools
// whose schemas drifted).
package upstream
