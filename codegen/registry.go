package codegen

import (
	"fmt"
	"path"

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
		dir := path.Join(goacodegen.Gendir, "registries", data.Package)
		where := fmt.Sprintf("registry %q", r.Name)
		if other, ok := dirs[dir]; ok {
			return nil, fmt.Errorf("quiver codegen: %s and %s both generate package %q: rename one", other, where, dir)
		}
		dirs[dir] = where
		header := goacodegen.Header(fmt.Sprintf("Registry %q client", r.Name), data.Package, []*goacodegen.ImportSpec{
			{Path: "github.com/quiver-go/quiver/registry"},
		})
		files = append(files, &goacodegen.File{
			Path: path.Join(dir, "client.go"),
			SectionTemplates: []*goacodegen.SectionTemplate{header,
				{Name: "quiver-registry-client", Source: registryClientT, Data: data, FuncMap: funcs}},
		})
	}
	return files, nil
}

// registryClientT renders a registry's constants and client constructor.
const registryClientT = `// Name is the registry's name in the design: the name agents' registry
// sources use.
const Name = {{ printf "%q" .Expr.Name }}

// URL is the registry's endpoint.
const URL = {{ printf "%q" .Expr.URL }}

// APIVersion is the registry API's version segment.
const APIVersion = {{ printf "%q" .Expr.APIVersion }}

// Credential names the security scheme whose credential NewClient sends
// ({{ if .Scheme }}{{ .Kind }}{{ else }}none: the design requires no credential{{ end }}).
const Credential = {{ printf "%q" .Scheme }}
{{ if .Scheme }}
// NewClient returns a client of the registry that sends credential — the
// {{ printf "%q" .Scheme }} {{ .Kind }} the design's Security names — as a
// bearer token on every request.
func NewClient(credential string, opts ...registry.ClientOption) (*registry.Client, error) {
	return registry.NewClient(URL, append([]registry.ClientOption{registry.WithAPIKey(credential)}, opts...)...)
}
{{- else }}
// NewClient returns a client of the registry. The design requires no
// credential; registry.WithAPIKey adds one.
func NewClient(opts ...registry.ClientOption) (*registry.Client, error) {
	return registry.NewClient(URL, opts...)
}
{{- end }}
`
