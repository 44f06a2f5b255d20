// Package gateway puts MCP servers behind a registry: it reads the
// mcpServers file MCP clients already use ([LoadConfig], [ParseConfig]:
// ${VAR} expanded from the environment, an "exposure" tier per server or
// per tool), connects each server with package upstream, and publishes
// what it lists as one toolset named after the server, through a provider
// in this process ([Start]). The registry's catalog, search, scopes and
// call guarantees then apply to those tools unchanged; quiver serve
// --upstreams serves that catalog to MCP clients.
//
// Invariants:
//   - One toolset per server, named after its key in the file; its tools
//     keep the server's names (dots made underscores, as package upstream
//     maps them) and get the tier the file gives, or none: a tool with no
//     tier is served as undeclared (quiver serve --undeclared).
//   - A server that fails to start, list or publish is retried with
//     backoff ([Options.MinBackoff] to [Options.MaxBackoff]) while the
//     others serve; its state and last error (with the end of a stdio
//     server's standard error) are in [Gateway.Status].
//   - The server's tools/list_changed republishes its toolset as a new
//     revision (the revision is a hash of the toolset's contract); a
//     server that goes away is reconnected at once — a stdio server is
//     started again — and listed again. Its calls in flight fail with
//     outcome_unknown (they may have run), as package upstream says.
//   - At most "maxConcurrentCalls" calls (default
//     [DefaultMaxConcurrentCalls]) run on one server at once: the provider
//     takes no more, and the registry holds the others until one ends.
//   - Secrets never reach a log line, a status or an error: every value a
//     ${VAR} expanded to and every "env" and "headers" value (and a URL's
//     user information and query) is scrubbed ([Config.Scrub]).
//
// The file's shape:
//
//	{"mcpServers": {
//	  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/work"],
//	            "exposure": "read_only", "tools": {"write_file": {"exposure": "staging"}}},
//	  "docs":  {"url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
//	            "exposure": "read_only", "maxConcurrentCalls": 4}
//	}}
package gateway
