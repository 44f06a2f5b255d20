package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// unlisted answers tools/call for a tool the session does not list but
// the catalog serves: a deferred tool not found yet, or one outside the
// caller's tier (an excluded tool stays unknown). The call path refuses it with the message the model
// needs (the search to run, or the scope it lacks) as a tool error, where
// the SDK would answer "unknown tool". Nothing runs either way.
func (ss *session) unlisted(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		call, ok := req.(*sdk.CallToolRequest)
		if !ok || method != "tools/call" || call.Params == nil {
			return next(ctx, method, req)
		}
		ss.mu.Lock()
		_, listed := ss.listed[call.Params.Name]
		ss.mu.Unlock()
		if listed {
			return next(ctx, method, req)
		}
		cur := ss.s.snapshot()
		if cur == nil {
			return next(ctx, method, req)
		}
		if !cur.known(&ss.s.cfg, call.Params.Name) {
			return next(ctx, method, req)
		}
		return ss.call(ctx, call.Params.Name, call)
	}
}

// known reports whether cur serves wire to some tier: a name unknown, or
// served to no one (excluded), stays invisible — called, it is answered
// as a name nobody declared.
func (cur *served) known(cfg *Config, wire string) bool {
	id, ok := cur.catalog.Ident(wire)
	t, served := cur.tools[id]
	return ok && served && cfg.needs(t.Spec) != ""
}
