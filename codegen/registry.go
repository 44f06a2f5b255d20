package codegen

import (
	"fmt"
	"path"
	"strings"

	goacodegen "goa.design/goa/v3/codegen"

	"github.com/quiver-go/quiver/expr"
)

// registryData is what the client package of a Registry declaration
// renders.
type registryData struct {
	Expr    *expr.RegistryExpr
	Package string
	// Scheme names the security scheme whose credential the client sends
	// ("" when the registry requires none); Kind says what it is.
	Scheme, Kind string
	// Options are the registry.ClientOption expressions of the settings
	// the design declares, and Settings their DSL names, in order.
	Options, Settings []string
}

// registrySettings returns the client options rendering the settings r
// declares (an API version other than the default one), the DSL names of
// those settings, and whether an option uses package time.
func registrySettings(r *expr.RegistryExpr) (opts, names []string, usesTime bool) {
	add := func(name, opt string, timed bool) {
		names = append(names, name)
		opts = append(opts, opt)
		usesTime = usesTime || timed
	}
	if r.Timeout > 0 {
		add("Timeout", "registry.WithTimeout("+durationLit(r.Timeout)+")", true)
	}
	if r.Retry != nil {
		add("Retry", fmt.Sprintf("registry.WithRetry(%d, %s)", r.Retry.MaxRetries, durationLit(r.Retry.Backoff)), true)
	}
	if r.APIVersion != "" && r.APIVersion != expr.DefaultRegistryAPIVersion {
		add("APIVersion", "registry.WithAPIVersion(APIVersion)", false)
	}
	if r.SyncInterval > 0 {
		add("SyncInterval", "registry.WithSyncInterval("+durationLit(r.SyncInterval)+")", true)
	}
	if r.CacheTTL > 0 {
		add("CacheTTL", "registry.WithCacheTTL("+durationLit(r.CacheTTL)+")", true)
	}
	if f := r.Federation; f != nil && len(f.Include)+len(f.Exclude) > 0 {
		add("Federation", "registry.WithFederation("+stringsLit(f.Include)+", "+stringsLit(f.Exclude)+")", false)
	}
	return opts, names, usesTime
}

// joinSettings lists DSL names for a comment: "Timeout, Retry and CacheTTL".
func joinSettings(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// registryFiles returns the client package of each registry declared in
// root: gen/registries/<registry>/client.go.
func registryFiles(root *expr.RootExpr, dirs map[string]string) ([]*goacodegen.File, error) {
	var files []*goacodegen.File
	for _, r := range root.Registries {
		scheme, err := r.Credential()
		if err != nil {
			return nil, fmt.Errorf("quiver codegen: %w", err)
		}
		data := &registryData{Expr: r, Package: packageName(r.Name)}
		if scheme != nil {
			data.Scheme, data.Kind = scheme.SchemeName, scheme.Kind.String()
		}
		opts, settings, usesTime := registrySettings(r)
		data.Options, data.Settings = opts, settings
		dir := path.Join(goacodegen.Gendir, "registries", data.Package)
		where := fmt.Sprintf("registry %q", r.Name)
		if other, ok := dirs[dir]; ok {
			return nil, fmt.Errorf("quiver codegen: %s and %s both generate package %q: rename one", other, where, dir)
		}
		dirs[dir] = where
		imports := []*goacodegen.ImportSpec{{Path: "github.com/quiver-go/quiver/registry"}}
		if usesTime {
			imports = append([]*goacodegen.ImportSpec{{Path: "time"}}, imports...)
		}
		header := goacodegen.Header(fmt.Sprintf("Registry %q client", r.Name), data.Package, imports)
		files = append(files, &goacodegen.File{
			Path: path.Join(dir, "client.go"),
			SectionTemplates: []*goacodegen.SectionTemplate{header,
				{Name: "quiver-registry-client", Source: registryClientT, Data: data, FuncMap: registryFuncs}},
		})
	}
	return files, nil
}

// registryFuncs are the registry client template's functions.
var registryFuncs = map[string]any{"joinSettings": joinSettings}
