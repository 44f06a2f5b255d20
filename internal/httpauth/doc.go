// Package httpauth holds BearerTransport, the one http.RoundTripper of the
// module that sends a bearer credential (Authorization: Bearer <key>): the
// MCP bench's client sessions and the tests that connect to a keyed MCP
// endpoint use it. The registry client sends its API key through its own
// request chain (registry.WithAPIKey), which also rewrites the API version
// and explains routes nothing serves, and does not use it.
//
// Invariants:
//   - A request is cloned before its header is set: the caller's request
//     is never modified, as http.RoundTripper requires.
//   - An empty key sends no Authorization header at all (an anonymous
//     client), never "Bearer " with nothing after it.
package httpauth
