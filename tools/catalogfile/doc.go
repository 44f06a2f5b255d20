// Package catalogfile reads tool catalogs stored as files in the shape of an
// MCP tools/list result:
//
//	{"tools": [{"name": "openTable", "title": "Open table", "description": "...",
//	            "inputSchema": {"type": "object", "properties": {...}},
//	            "keywords": ["grid"], "tags": ["tables"]}]}
//
// A bare JSON array of tools is accepted too. Fields other than name, title,
// description, inputSchema, keywords and tags (server, annotations,
// outputSchema, ...) are ignored.
//
// Invariants of a Catalog returned by Read or Load:
//   - every tool has a non-empty name, unique within the catalog;
//   - every InputSchema is a JSON object; a tool without one gets
//     {"type":"object"};
//   - tools keep their order in the file.
//
// Errors are of type *Error and say which file, where (line:column of the
// offending JSON value, and its path such as tools[3].name) and what was
// expected:
//
//	catalogfile: workspace.json:12:5: tools[3].name: expected a non-empty string, got number
//
// A catalog is the input of the search command and of the token benchmarks;
// Tool.SearchSource turns a tool into the text search.NewDocument indexes.
package catalogfile
