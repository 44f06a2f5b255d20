package dsl

import (
	"goa.design/goa/v3/eval"

	"github.com/quiver-go/quiver/expr"
)

// Registry declares, at the top level, a registry of toolsets whose
// providers publish and update tools without recompiling consumers. In its
// DSL use Goa's URL (required), Description, Timeout and Security, and
// APIVersion, Retry, SyncInterval, CacheTTL and Federation:
//
//	var Corp = Registry("corp", func() {
//		URL("https://registry.corp.internal")
//		Timeout("30s")
//		Retry(3, "1s")
//	})
//
// Agents consume one of its toolsets with Toolset(FromRegistry(Corp,
// "data-tools")) or the whole registry with Use(Corp). goa gen generates the
// registry's client package (gen/registries/<name>: its Name, URL, API
// version and a NewClient sending the credential its Security names); an
// agent consuming the registry lists it in its generated Definition's
// Registries, and the application connects the client before the first run
// with rt.RegisterRegistry(name, client).
func Registry(name string, fn func()) *expr.RegistryExpr {
	if _, top := eval.Current().(eval.TopExpr); !top {
		eval.ReportError("Registry: %q must be declared at the top level of the design", name)
		return nil
	}
	r := &expr.RegistryExpr{Name: name, DSLFunc: fn, Location: expr.DesignLocation()}
	expr.Root.Registries = append(expr.Root.Registries, r)
	return r
}

// APIVersion sets the API version path segment of the current registry
// ("v1" when not declared).
func APIVersion(version string) {
	if r := currentRegistry("APIVersion"); r != nil {
		r.APIVersion = version
	}
}

// Retry sets the current registry's retry policy for failed requests:
// retry up to maxRetries times, waiting backoff (a duration such as "1s")
// before the first retry.
func Retry(maxRetries int, backoff string) {
	r := currentRegistry("Retry")
	if r == nil {
		return
	}
	if r.Retry != nil {
		eval.ReportError("Retry: the registry's retry policy is declared twice")
		return
	}
	d, err := expr.ParseDuration("Retry", backoff)
	if err != nil {
		eval.ReportError("%s", err)
		return
	}
	r.Retry = &expr.RetryExpr{MaxRetries: maxRetries, Backoff: d}
}

// SyncInterval sets how often the current registry's catalog is refreshed:
// a duration such as "5m".
func SyncInterval(interval string) {
	if r := currentRegistry("SyncInterval"); r != nil {
		if d, err := expr.ParseDuration("SyncInterval", interval); err != nil {
			eval.ReportError("%s", err)
		} else {
			r.SyncInterval = d
		}
	}
}

// CacheTTL sets how long the current registry's local cache keeps entries:
// a duration such as "1h".
func CacheTTL(ttl string) {
	if r := currentRegistry("CacheTTL"); r != nil {
		if d, err := expr.ParseDuration("CacheTTL", ttl); err != nil {
			eval.ReportError("%s", err)
		} else {
			r.CacheTTL = d
		}
	}
}

// Federation selects the namespaces the current registry imports from a
// federated source, with Include and Exclude glob patterns:
//
//	Federation(func() {
//		Include("web-search", "data-*")
//		Exclude("experimental/*")
//	})
func Federation(fn func()) {
	r := currentRegistry("Federation")
	if r == nil {
		return
	}
	if r.Federation != nil {
		eval.ReportError("Federation: the registry's federation is declared twice")
		return
	}
	r.Federation = &expr.FederationExpr{Registry: r}
	eval.Execute(fn, r.Federation)
}

// Include adds glob patterns of namespaces a Federation imports; without
// Include every namespace is imported.
func Include(patterns ...string) {
	if f := currentFederation("Include", patterns); f != nil {
		f.Include = append(f.Include, patterns...)
	}
}

// Exclude adds glob patterns of namespaces a Federation skips, applied
// after Include.
func Exclude(patterns ...string) {
	if f := currentFederation("Exclude", patterns); f != nil {
		f.Exclude = append(f.Exclude, patterns...)
	}
}

// FromRegistry is the provider option of a toolset resolved from a
// registry at run time: Toolset(FromRegistry(Corp, "data-tools")), named
// after the registry toolset unless Toolset gives a name. Goa's Version in
// the toolset's DSL requires a published version ("1.2.3"). The provider
// owns the definitions: a registry reference declares no tools, tags or
// publications, is not exported, and its consumers defer it with
// Deferred() only.
func FromRegistry(registry *expr.RegistryExpr, toolset string) *expr.ProviderExpr {
	if registry == nil {
		eval.ReportError("FromRegistry: %q: the registry is nil (was it declared with Registry at the top level?)", toolset)
		return nil
	}
	return &expr.ProviderExpr{Kind: expr.ProviderRegistry, Registry: registry, Toolset: toolset, Location: expr.DesignLocation()}
}

// PublishTo publishes the toolset of the current Export to registry, with
// its schemas and fingerprint. A service's Export publishes: goa gen
// generates PublishTo<Registry> in the toolset's package, which serves the
// toolset to the registry (registry.Serve). (project) An agent's Export
// cannot be published: it runs the agent as the tool (agent-as-tool, a
// child workflow), which a registry cannot carry, and validation says so.
func PublishTo(registry *expr.RegistryExpr) {
	switch cur := eval.Current().(type) {
	case *expr.ExportExpr:
		if registry == nil {
			eval.ReportError("PublishTo: the registry is nil (was it declared with Registry at the top level?)")
			return
		}
		expr.Root.Publications = append(expr.Root.Publications, &expr.PublicationExpr{Export: cur, Registry: registry, Location: expr.DesignLocation()})
	case *expr.ToolsetExpr:
		if reg := cur.RegistryRef(); reg != nil {
			eval.ReportError("PublishTo: toolset %q is a reference to registry %q: only its provider publishes it", cur.Name, reg.Name)
			return
		}
		eval.ReportError("PublishTo: must be used in an Export: the agent or service that exports toolset %q publishes it", cur.Name)
	default:
		eval.ReportError("PublishTo: must be used in an Export")
	}
}

// currentRegistry returns the registry whose DSL is running, reporting an
// error naming fname elsewhere.
func currentRegistry(fname string) *expr.RegistryExpr {
	r, ok := eval.Current().(*expr.RegistryExpr)
	if !ok {
		eval.ReportError("%s: must be used in a Registry", fname)
		return nil
	}
	return r
}

// currentFederation returns the federation whose DSL is running, reporting
// an error naming fname elsewhere or when no pattern is given.
func currentFederation(fname string, patterns []string) *expr.FederationExpr {
	f, ok := eval.Current().(*expr.FederationExpr)
	if !ok {
		eval.ReportError("%s: must be used in a Registry's Federation", fname)
		return nil
	}
	if len(patterns) == 0 {
		eval.ReportError("%s: give at least one glob pattern", fname)
		return nil
	}
	return f
}
