package expr

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"
)

// DefaultRegistryAPIVersion is the API version of a registry that declares
// none.
const DefaultRegistryAPIVersion = "v1"

// RegistryExpr is a registry of toolsets declared at the top level with
// Registry(name, func() { URL(...) }). Agents consume a whole registry with
// Use(registry) or one of its toolsets with Toolset(FromRegistry(...)).
type RegistryExpr struct {
	eval.DSLFunc
	// Name identifies the registry in the design and at run time
	// (rt.RegisterRegistry(name, ...)).
	Name string
	// Description says what the registry offers (Goa's Description).
	Description string
	// URL is the registry endpoint (Goa's URL); required.
	URL string
	// APIVersion is the API path segment; "v1" when not declared.
	APIVersion string
	// Timeout bounds one HTTP request (Goa's Timeout); zero: the client's
	// default.
	Timeout time.Duration
	// Retry is the retry policy for failed requests; nil: no retry.
	Retry *RetryExpr
	// SyncInterval is how often the catalog is refreshed; zero: default.
	SyncInterval time.Duration
	// CacheTTL is how long the local cache keeps entries; zero: default.
	CacheTTL time.Duration
	// Federation selects the namespaces imported from a federated source.
	Federation *FederationExpr
	// Security lists the Goa security requirements of the registry API
	// (Goa's Security).
	Security []*goaexpr.SecurityExpr
	// Location is where Registry is called in the design.
	Location Location
	// errs are errors recorded while the DSL ran, reported by Validate.
	errs []string
}

// RetryExpr is a registry's retry policy: Retry(maxRetries, backoff).
type RetryExpr struct {
	// MaxRetries is how many times a failed request is retried.
	MaxRetries int
	// Backoff is the wait before the first retry.
	Backoff time.Duration
}

// FederationExpr selects the namespaces a registry imports from a
// federated source: Include patterns (all when none), then Exclude ones.
type FederationExpr struct {
	// Registry is the registry the federation belongs to.
	Registry *RegistryExpr
	// Include are glob patterns of namespaces to import.
	Include []string
	// Exclude are glob patterns of namespaces to skip, applied after
	// Include.
	Exclude []string
}

// PublicationExpr is a PublishTo(registry) declared in an Export: the
// exported toolset is published to the registry.
type PublicationExpr struct {
	// Export is the export publishing its toolset.
	Export *ExportExpr
	// Registry is the registry the toolset is published to.
	Registry *RegistryExpr
	// Location is where PublishTo is called in the design.
	Location Location
}

// EvalName implements eval.Expression.
func (p *PublicationExpr) EvalName() string {
	return fmt.Sprintf("publication to registry %q of the %s", p.Registry.Name, p.Export.EvalName())
}

// Validate rejects publishing one export twice to the same registry, and
// publishing an agent's export. (project) A service's export publishes its
// toolset through a generated helper; an agent's export is the agent run
// as a tool (agent-as-tool, in a child workflow of the consumer's run),
// which a registry provider cannot carry, so it stays compiled into its
// consumers.
func (p *PublicationExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	if a := p.Export.Agent; a != nil {
		svc := "its service"
		if a.Service != nil {
			svc = fmt.Sprintf("service %q", a.Service.Name)
		}
		verr.Add(p.Location.Of(p), "PublishTo: toolset %q is exported by %s: an agent's export runs the agent as the tool (agent-as-tool, in a child workflow of the caller's run), which a registry cannot carry, so agent exports stay compiled into their consumers; to publish the toolset to registry %q, export it from %s instead (Export in the Service, outside the Agent) and serve its calls with the generated PublishTo helper", p.Export.Name(), a.EvalName(), p.Registry.Name, svc)
	}
	for _, other := range Root.Publications {
		if other == p {
			break
		}
		if other.Export == p.Export && other.Registry == p.Registry {
			verr.Add(p.Location.Of(p), "PublishTo: toolset %q is published to registry %q twice", p.Export.Name(), p.Registry.Name)
			break
		}
	}
	return result(verr)
}

// PublishedTo returns the registries the export publishes its toolset to,
// in declaration order.
func (r *RootExpr) PublishedTo(e *ExportExpr) []*RegistryExpr {
	var regs []*RegistryExpr
	for _, p := range r.Publications {
		if p.Export == e {
			regs = append(regs, p.Registry)
		}
	}
	return regs
}

// EvalName implements eval.Expression.
func (r *RegistryExpr) EvalName() string { return fmt.Sprintf("registry %q", r.Name) }

// EvalName implements eval.Expression.
func (f *FederationExpr) EvalName() string {
	return "federation of " + f.Registry.EvalName()
}

// SetDescription lets Goa's Description describe the registry.
func (r *RegistryExpr) SetDescription(d string) { r.Description = d }

// SetURL lets Goa's URL set the registry endpoint.
func (r *RegistryExpr) SetURL(u string) { r.URL = u }

// SetTimeout lets Goa's Timeout set the HTTP request timeout.
func (r *RegistryExpr) SetTimeout(d string) error {
	v, err := ParseDuration("Timeout", d)
	if err != nil {
		return err
	}
	r.Timeout = v
	return nil
}

// AddSecurityRequirement lets Goa's Security require credentials for the
// registry API.
func (r *RegistryExpr) AddSecurityRequirement(s *goaexpr.SecurityExpr) {
	r.Security = append(r.Security, s)
}

// AddError records an error found while the registry's DSL ran; Validate
// reports it.
func (r *RegistryExpr) AddError(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Validate requires a unique name and an absolute http(s) URL, and checks
// the retry policy and the federation patterns.
func (r *RegistryExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	at := r.Location.Of(r)
	for _, e := range r.errs {
		verr.Add(at, "%s", e)
	}
	if strings.TrimSpace(r.Name) == "" {
		verr.Add(at, "Registry: the name is empty")
	}
	for _, other := range Root.Registries {
		if other != r && other.Name == r.Name {
			verr.Add(at, "Registry: %q is declared twice", r.Name)
			break
		}
	}
	if r.URL == "" {
		verr.Add(at, "URL: registry %q has no URL: declare its endpoint with URL(\"https://...\")", r.Name)
	} else if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		verr.Add(at, "URL: %q is not an absolute http or https URL", r.URL)
	}
	if r.APIVersion != "" && (strings.ContainsAny(r.APIVersion, "/?# ") || strings.TrimSpace(r.APIVersion) == "") {
		verr.Add(at, "APIVersion: %q is not a path segment such as \"v1\"", r.APIVersion)
	}
	if r.Retry != nil && r.Retry.MaxRetries < 0 {
		verr.Add(at, "Retry: maxRetries is %d: want 0 or more", r.Retry.MaxRetries)
	}
	if f := r.Federation; f != nil {
		for _, p := range slices.Concat(f.Include, f.Exclude) {
			if _, err := path.Match(p, ""); err != nil || strings.TrimSpace(p) == "" {
				verr.Add(at, "Federation: %q is not a glob pattern such as \"data-*\"", p)
			}
		}
	}
	if _, err := r.Credential(); err != nil {
		verr.Add(at, "Security: %s", err)
	}
	return result(verr)
}

// Credential returns the security scheme whose credential the registry's
// client sends, or nil when the registry requires none. The registry API
// authenticates a request with one bearer credential, so a registry
// requires one scheme at most, an API key, a JWT or an OAuth2 token.
func (r *RegistryExpr) Credential() (*goaexpr.SchemeExpr, error) {
	var schemes []*goaexpr.SchemeExpr
	for _, req := range r.Security {
		schemes = append(schemes, req.Schemes...)
	}
	switch len(schemes) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("registry %q requires %d security schemes; its client sends one credential: require one", r.Name, len(schemes))
	}
	s := schemes[0]
	switch s.Kind {
	case goaexpr.APIKeyKind, goaexpr.JWTKind, goaexpr.OAuth2Kind:
		return s, nil
	}
	return nil, fmt.Errorf("registry %q requires scheme %q, a %s: a registry client sends a bearer credential (an API key, a JWT or an OAuth2 token)", r.Name, s.SchemeName, s.Kind)
}

// Finalize defaults the API version.
func (r *RegistryExpr) Finalize() {
	if r.APIVersion == "" {
		r.APIVersion = DefaultRegistryAPIVersion
	}
}

// Registry returns the registry of that name.
func (r *RootExpr) Registry(name string) *RegistryExpr {
	for _, reg := range r.Registries {
		if reg.Name == name {
			return reg
		}
	}
	return nil
}

// serviceExists reports whether Goa's root declares the service.
func serviceExists(name string) bool {
	return goaexpr.Root != nil && goaexpr.Root.Service(name) != nil
}

// SourceRegistry returns the registry a use consumes: the whole registry
// of Use(registry), or the registry of a FromRegistry toolset; nil for any
// other use.
func (u *UseExpr) SourceRegistry() *RegistryExpr {
	if u.Registry != nil {
		return u.Registry
	}
	return u.Toolset.RegistryRef()
}

// validateRegistryUse applies seed 000's rules to a use of a registry or of
// a registry reference, whose tools are resolved at run time: Deferred()
// only, no selection by name. It reports whether the use consumes a
// registry (the checks of local tool names then do not apply).
func (u *UseExpr) validateRegistryUse(verr *eval.ValidationErrors) bool {
	reg := u.SourceRegistry()
	if reg == nil {
		return false
	}
	what := fmt.Sprintf("registry %q", reg.Name)
	if u.Registry == nil {
		what = fmt.Sprintf("toolset %q of registry %q", u.Toolset.Name, reg.Name)
	}
	if u.namedCalls > 0 {
		verr.Add(u, "Deferred: %s resolves its tools at run time: defer them all with Deferred(), not Deferred(names...)", what)
	}
	if len(u.Subset) > 0 {
		verr.Add(u, "Use: %s resolves its tools at run time: its tools cannot be selected by name (%s)", what, strings.Join(u.Subset, ", "))
	}
	return true
}

// validateSources rejects duplicate or overlapping sources in one agent: a
// registry used twice, two toolsets naming the same provider toolset, and
// a registry reference beside a use of its whole registry.
func (a *AgentExpr) validateSources(verr *eval.ValidationErrors) {
	whole := map[*RegistryExpr]bool{}
	for _, u := range a.Uses {
		if u.Registry == nil {
			continue
		}
		if whole[u.Registry] {
			verr.Add(a, "Use: registry %q is used twice by the agent: merge the uses", u.Registry.Name)
		}
		whole[u.Registry] = true
	}
	type source struct {
		kind             ProviderKind
		service, toolset string
		registry         *RegistryExpr
	}
	seen := map[source]string{}
	for _, u := range a.Uses {
		ts := u.Toolset
		if ts == nil || ts.Provider == nil {
			continue
		}
		key := source{ts.Provider.Kind, ts.Provider.Service, ts.Provider.Toolset, ts.Provider.Registry}
		if prev, ok := seen[key]; ok && prev != ts.Name {
			verr.Add(a, "Use: toolsets %q and %q are the same source, %s: use one of them", prev, ts.Name, ts.Provider.EvalName())
		}
		seen[key] = ts.Name
		if reg := ts.RegistryRef(); reg != nil && whole[reg] {
			verr.Add(a, "Use: toolset %q overlaps registry %q, which the agent also uses whole: its tools would be offered twice; keep one of the uses", ts.Name, reg.Name)
		}
	}
}
