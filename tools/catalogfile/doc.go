// Package catalogfile reads tool catalogs stored as files in the shape of an
// MCP tools/list result:
//
//	{"tools": [{"name": "openTable", "title": "Open table", "description": "...",
//	            "inputSchema": {"type": "object", "properties": {...}},
//	            "keywords": ["grid"], "tags": ["tables"]}]}
//
// It also reads a bare JSON array of tools, and a whole JSON-RPC response
// to tools/list as saved from an MCP server:
//
//	{"jsonrpc": "2.0", "id": 1, "result": {"tools": [...], "nextCursor": "..."}}
//
// (a non-empty nextCursor is a warning: the server has more pages). A UTF-8
// byte order mark is skipped. A tool's schema is read from "inputSchema"
// or "input_schema". Fields other than name, title, description, the input
// schema, keywords and tags (server, annotations, outputSchema, ...) are
// ignored.
//
// # A catalog the runtime accepts
//
// Reading checks every tool as the runtime would compile it, with
// [contract.Check] (what [contract.Compile] refuses): the input schema must be
// a valid JSON Schema, self-contained, with an object root; keywords and
// tags must not be empty, nor tags repeated. It also refuses what a
// provider would: a name that makes no valid ident (whitespace, control
// characters, empty dot segments), a tool name outside
// ^[a-zA-Z0-9_-]{1,64}$, two names that differ only in case; and what is
// not text: invalid UTF-8, control characters other than tab and line
// breaks in titles and descriptions. A name with a dot is an ident
// ("workspace.openTable": tool openTable of toolset workspace); a name
// without one belongs to [DefaultToolset] when checked, and to the toolset
// given to [Catalog.Declarations]. [ReadOptions.Lenient] turns name problems
// into [Catalog.Warnings], to explore a third-party catalog.
//
// From an MCP tools/list file to runtime specs:
//
//	c, err := catalogfile.Load("weather.json")             // checked as above
//	decls, err := c.Declarations("weather")                // []contract.ToolDeclaration
//	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "weather", Tools: decls})
//
// # Bounded input
//
// A catalog holds at most [ReadOptions.MaxSize] bytes ([DefaultMaxSize], 64
// MiB, by default): a larger regular file is refused from its size before
// it is read, and a pipe or a device is read until one byte more than the
// limit arrives, so /dev/zero or an endless stream fails at once
// ([ErrTooLarge]). The tools array is decoded one tool at a time; the bytes
// before the current tool are dropped as soon as it is read, so reading
// holds the catalog built so far plus one tool, not copies of the file.
//
// Invariants of a [Catalog] returned by [Read] or [Load]:
//   - every tool has a non-empty name, unique within the catalog, and no
//     two names make the same ident;
//   - every InputSchema is a JSON object; a tool without one gets
//     {"type":"object"};
//   - without Lenient, the declarations Declarations(DefaultToolset)
//     returns compile with [contract.Compile];
//   - tools keep their order in the file.
//
// Errors are of type *Error and say which file, where (line:column of the
// offending JSON value, and its path such as tools[3].name or
// result.tools[3].inputSchema) and what was expected. Every tool's problem
// is reported, in file order ([Problems], one a line, when there are
// several; at most [MaxProblems]); a syntax error ends the read, after the
// problems before it:
//
//	catalogfile: workspace.json:12:5: tools[3].name: expected a non-empty string, got number
//	catalogfile: mcp.json:9:58: result.tools[1].inputSchema: invalid JSON Schema: at /properties/limit/minimum: got string, want number
//
// A catalog is the input of the quiver command and of the token
// benchmarks; [Tool.SearchSource] turns a tool into the text
// [search.NewDocument] indexes.
package catalogfile
