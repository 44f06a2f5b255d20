// Package httpguard holds the checks that keep a local HTTP endpoint out of
// reach of web pages in the user's browser: a Host that must name the
// loopback interface (DNS rebinding), an Origin or Sec-Fetch-Site that must
// be the server's own (cross-site requests), and a body that must be
// declared application/json (the "simple" content types a page may send
// without a preflight are refused). The registry's front door and the MCP
// endpoint both use them; neither reads a body before these pass.
package httpguard
