package runtime

import (
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/registry"
)

// RegistryUse is an agent's consumption of a registry: one of its
// toolsets (a design's Toolset(FromRegistry(registry, toolset))) or the
// whole registry (Use(registry)). Its tools are resolved at every planning
// step that can start work, never at registration.
type RegistryUse struct {
	// Registry is the name the registry was connected under
	// ([Runtime.RegisterRegistry]).
	Registry string
	// Toolset names one toolset of the registry; "" consumes every toolset
	// the registry lists (an empty registry is valid).
	Toolset string
	// Version pins the published version of [RegistryUse.Toolset]: a step fails
	// when the registry publishes another one. It checks, it does not select an
	// older version. Named toolsets only.
	Version string
	// DeferAll loads the source's tools by search instead of advertising
	// them. Registry sources defer all or nothing: their tools are not
	// known when the agent is declared.
	DeferAll bool
}

// String names the source for errors: registry "r" or toolset "t" of
// registry "r".
func (u RegistryUse) String() string {
	if u.Toolset == "" {
		return fmt.Sprintf("registry %q", u.Registry)
	}
	return fmt.Sprintf("toolset %q of registry %q", u.Toolset, u.Registry)
}

// RegistrySource is where a registry tool came from: what [RegistryTools]
// decides saved calls may keep using.
type RegistrySource struct {
	// Registry is the registry's name ([Runtime.RegisterRegistry]).
	Registry string
	// Toolset is the toolset the tool belongs to.
	Toolset string
}

// ErrRegistryRegistered is wrapped by [Runtime.RegisterRegistry]'s error for
// a name connected already.
var ErrRegistryRegistered = errors.New("runtime: registry already registered")

// RegisterRegistry connects the client of a registry under name, the name
// agents' registry uses refer to (for generated agents, the design's
// Registry name). Connect it before the first run of an agent using it;
// agents may be registered before. The same name twice fails with
// [ErrRegistryRegistered].
//
// The client's consumer settings ([registry.WithCacheTTL],
// [registry.WithSyncInterval], the federation globs) apply to every agent
// reading through it.
func (rt *Runtime) RegisterRegistry(name string, client *registry.Client) error {
	if name == "" {
		return errors.New("runtime: register registry: the name is empty")
	}
	if client == nil {
		return fmt.Errorf("runtime: register registry %q: the client is nil", name)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if _, dup := rt.registries[name]; dup {
		return fmt.Errorf("%w: %q", ErrRegistryRegistered, name)
	}
	rt.registries[name] = newRegistryConn(name, client)
	return nil
}

// checkRegistryUses reports the problems of an agent's registry uses: an
// empty registry name, a version on a whole registry, and sources that
// overlap — the same toolset twice, or a toolset of a registry the agent
// also consumes whole.
func checkRegistryUses(uses []RegistryUse) []error {
	var errs []error
	for i, u := range uses {
		if u.Registry == "" {
			errs = append(errs, fmt.Errorf("registry use %d names no registry", i))
			continue
		}
		if u.Toolset == "" && u.Version != "" {
			errs = append(errs, fmt.Errorf("%s: a version pins one toolset; a whole registry has none", u))
		}
		for _, prev := range uses[:i] {
			if prev.Registry != u.Registry {
				continue
			}
			if prev.Toolset == u.Toolset || prev.Toolset == "" || u.Toolset == "" {
				errs = append(errs, fmt.Errorf("%s overlaps %s: consume each registry toolset once", u, prev))
			}
		}
	}
	return errs
}
