package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	goa "goa.design/goa/v3/pkg"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// The audit trail: one structured line per write that passed the front
// door — who (the key's name and role), what (the operation, its toolset,
// tool, call and lease) and how it ended (ok, or the error's name). It
// never holds a payload, a result, an error message or a key. Lease
// renewals are left out: they change nothing but an expiry, several times
// a lease's TTL.
//
//	level=INFO msg="registry: audit" key=ci role=provider op=register route="POST /v1/registrations" toolset=records lease=lease_… result=ok

// auditMessage is the message of every audit line.
const auditMessage = "registry: audit"

// auditRoutes are the API routes of the audited operations.
var auditRoutes = map[string]string{
	"register":    "POST /v1/registrations",
	"drain":       "POST /v1/leases/{lease_id}/drain",
	"release":     "DELETE /v1/leases/{lease_id}",
	"unregister":  "DELETE /v1/toolsets/{name}",
	"post_result": "POST /v1/calls/{call_id}/result",
	"call":        "POST /v1/calls",
}

// auditEntry is what one write names.
type auditEntry struct {
	toolset, tool, call, lease string
}

// audited wraps the API's write endpoints so that each logs its line.
func (s *Service) audited(eps *gen.Endpoints) *gen.Endpoints {
	wrap := func(op string, next goa.Endpoint, what func(req any) auditEntry) goa.Endpoint {
		return func(ctx context.Context, req any) (any, error) {
			res, err := next(ctx, req)
			e := what(req)
			if e.lease == "" {
				if reg, ok := res.(*gen.Registration); ok && reg != nil {
					e.lease = reg.LeaseID
				}
			}
			s.audit(ctx, op, e, err)
			return res, err
		}
	}
	lease := func(id string) auditEntry {
		e := auditEntry{lease: id}
		if l, ok := s.router.leaseOf(id); ok {
			e.toolset = l.Toolset
		}
		return e
	}
	eps.Register = wrap("register", eps.Register, func(req any) auditEntry {
		p, _ := req.(*gen.RegisterPayload)
		if p == nil {
			return auditEntry{}
		}
		return auditEntry{toolset: declarationName(p.Toolset)}
	})
	eps.Drain = wrap("drain", eps.Drain, func(req any) auditEntry {
		if p, ok := req.(*gen.DrainPayload); ok {
			return lease(p.LeaseID)
		}
		return auditEntry{}
	})
	eps.Release = wrap("release", eps.Release, func(req any) auditEntry {
		if p, ok := req.(*gen.ReleasePayload); ok {
			return lease(p.LeaseID)
		}
		return auditEntry{}
	})
	eps.Unregister = wrap("unregister", eps.Unregister, func(req any) auditEntry {
		if p, ok := req.(*gen.UnregisterPayload); ok {
			return auditEntry{toolset: p.Name}
		}
		return auditEntry{}
	})
	eps.PostResult = wrap("post_result", eps.PostResult, func(req any) auditEntry {
		if p, ok := req.(*gen.PostResultPayload); ok {
			e := lease(p.LeaseID)
			e.call = p.CallID
			return e
		}
		return auditEntry{}
	})
	eps.CallResolvedTool = wrap("call", eps.CallResolvedTool, func(req any) auditEntry {
		if p, ok := req.(*gen.CallResolvedToolPayload); ok {
			return auditEntry{toolset: p.Toolset, tool: p.Tool, call: registryEcho(p.CallID)}
		}
		return auditEntry{}
	})
	return eps
}

// audit writes one audit line.
func (s *Service) audit(ctx context.Context, op string, e auditEntry, err error) {
	p := principal(ctx)
	result := "ok"
	if err != nil {
		result = "error"
		var se *goa.ServiceError
		if errors.As(err, &se) {
			result = se.Name
		}
	}
	attrs := []slog.Attr{slog.String("key", p.Name), slog.String("role", string(p.Role)), slog.String("op", op), slog.String("route", auditRoutes[op])}
	for _, kv := range [][2]string{{"toolset", e.toolset}, {"tool", e.tool}, {"call", e.call}, {"lease", e.lease}} {
		if kv[1] != "" {
			attrs = append(attrs, slog.String(kv[0], kv[1]))
		}
	}
	attrs = append(attrs, slog.String("result", result))
	s.cfg.AuditLog.LogAttrs(ctx, slog.LevelInfo, auditMessage, attrs...)
}

// declarationName reads the name of a registration's declaration without
// decoding the rest.
func declarationName(raw any) string {
	b, err := rawAny(raw)
	if err != nil {
		return ""
	}
	var d struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(b, &d) != nil {
		return ""
	}
	return registryEcho(d.Name)
}

// registryEcho bounds what the audit repeats of a caller's string.
func registryEcho(s string) string {
	if len(s) > 256 {
		return s[:256] + "…"
	}
	return s
}
