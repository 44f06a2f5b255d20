package server

import (
	"context"
	"errors"
	"fmt"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"goa.design/goa/v3/security"
)

type principalKey struct{}

// APIKeyAuth authenticates a request by its API key (Goa's security
// scheme): an unknown or missing key is unauthorized. The front door has
// authenticated every request that reaches the API already, before its
// body was read; its principal is the one kept. Otherwise the key is
// looked up in the current keys (Service.SetKeys).
func (s *Service) APIKeyAuth(ctx context.Context, key string, _ *security.APIKeyScheme) (context.Context, error) {
	if _, ok := ctx.Value(principalKey{}).(Principal); ok {
		return ctx, nil
	}
	p, ok := s.currentKeys().Lookup(key)
	if !ok {
		if key == "" {
			return ctx, gen.MakeUnauthorized(errors.New("the request carries no API key: send it as Authorization: Bearer <key>"))
		}
		return ctx, gen.MakeUnauthorized(errors.New("the API key is not in the registry's keys file"))
	}
	return context.WithValue(ctx, principalKey{}, p), nil
}

func principal(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

func mayConsume(ctx context.Context) error {
	if p := principal(ctx); !p.MayConsume() {
		return gen.MakeForbidden(fmt.Errorf("key %q has role %q: reading the catalog and calling tools needs a consumer or admin key", p.Name, p.Role))
	}
	return nil
}

func mayPublish(ctx context.Context, toolset string) error {
	if p := principal(ctx); !p.MayPublish(toolset) {
		if p.Role == RoleProvider {
			return gen.MakeForbidden(fmt.Errorf("provider key %q may publish only toolsets matching %q, not %q", p.Name, p.Toolsets, toolset))
		}
		return gen.MakeForbidden(fmt.Errorf("key %q has role %q: publishing toolsets needs a provider or admin key", p.Name, p.Role))
	}
	return nil
}
