package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools/contract"
)

// requestTimeout bounds a catalog request (ls, search, resolve).
const requestTimeout = 30 * time.Second

// maxSearchLimit is the registry's largest search limit.
const maxSearchLimit = 100

// lsOptions are the flags of quiver registry ls.
type lsOptions struct {
	reg  registryFlags
	tags []string
	json bool
}

// newRegistryLsCommand returns quiver registry ls.
func newRegistryLsCommand() *cobra.Command {
	var opts lsOptions
	cmd := &cobra.Command{
		Use:   "ls [--tag T]... [--json]",
		Short: "List the registry's toolsets",
		Long: `List the toolsets of the registry's catalog, sorted by name: the version each
publishes, the revision registered, its number of tools and of healthy
providers (live leases that are not draining). --tag T keeps the toolsets
tagged T; given several times, the toolsets with every tag.`,
		Example: `  # with quiver serve running
  quiver registry ls
  quiver registry ls --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLs(cmd.Context(), cmd.OutOrStdout(), opts)
		},
	}
	opts.reg.addFlags(cmd)
	cmd.Flags().StringArrayVar(&opts.tags, "tag", nil, "keep the toolsets tagged `T` (repeatable: every tag)")
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"revision":N,"toolsets":[{"name":…,"version":…,"tags":[…],"fingerprint":…,"revision":…,"tools":[…],"providers":N}]}`)
	return cmd
}

// jsonToolsets is the --json output of quiver registry ls: the API's
// list_toolsets body.
type jsonToolsets struct {
	Revision int64             `json:"revision"`
	Toolsets []jsonToolsetInfo `json:"toolsets"`
}

type jsonToolsetInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Version     string   `json:"version,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Fingerprint string   `json:"fingerprint"`
	Revision    string   `json:"revision"`
	Tools       []string `json:"tools"`
	Providers   int      `json:"providers"`
}

func runLs(ctx context.Context, w io.Writer, opts lsOptions) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	res, err := opts.reg.client.ListToolsets(ctx, &gen.ListToolsetsPayload{Tags: opts.tags})
	if err != nil {
		return opts.reg.fail(err)
	}
	out := jsonToolsets{Revision: res.Revision, Toolsets: make([]jsonToolsetInfo, 0, len(res.Toolsets))}
	for _, ts := range res.Toolsets {
		out.Toolsets = append(out.Toolsets, jsonToolsetInfo{
			Name: ts.Name, Description: deref(ts.Description), Version: deref(ts.Version), Tags: ts.Tags,
			Fingerprint: ts.Fingerprint, Revision: ts.Revision, Tools: ts.Tools, Providers: ts.Providers,
		})
	}
	if opts.json {
		return writeJSON(w, out)
	}
	if len(out.Toolsets) == 0 {
		if len(opts.tags) > 0 {
			_, err := fmt.Fprintf(w, "No toolset of the registry at %s has the tags %s (catalog revision %d).\n", opts.reg.url, strings.Join(opts.tags, ", "), res.Revision)
			return err
		}
		_, err := fmt.Fprintf(w, "No toolset is registered at %s (catalog revision %d).\n", opts.reg.url, res.Revision)
		return err
	}
	fmt.Fprintf(w, "registry  %s: %s (catalog revision %d)\n\n", opts.reg.url, count(len(out.Toolsets), "toolset", "toolsets"), res.Revision)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tREVISION\tTOOLS\tPROVIDERS")
	for _, ts := range out.Toolsets {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", ts.Name, orDash(ts.Version), ts.Revision, len(ts.Tools), ts.Providers)
	}
	return tw.Flush()
}

// registrySearchOptions are the flags of quiver registry search.
type registrySearchOptions struct {
	reg   registryFlags
	limit int
	json  bool
}

// newRegistrySearchCommand returns quiver registry search.
func newRegistrySearchCommand() *cobra.Command {
	var opts registrySearchOptions
	cmd := &cobra.Command{
		Use:   `search "<query>" [--limit N] [--json]`,
		Short: "Search the registry's catalog for tools",
		Long: `Rank the tools of every toolset in the registry's catalog for a request, with
the registry's discovery ranker, and print the best --limit (at most 100).
Several words are joined into one query.`,
		Example: `  # with quiver serve running
  quiver registry search "export this table to csv"
  quiver registry search "open a table" --limit 3 --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, " ")) == "" {
				return usagef(`missing query: quiver registry search "<query>"`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.limit < 1 || opts.limit > maxSearchLimit {
				return usagef("--limit %d: want 1 to %d", opts.limit, maxSearchLimit)
			}
			return runRegistrySearch(cmd.Context(), cmd.OutOrStdout(), strings.Join(args, " "), opts)
		},
	}
	opts.reg.addFlags(cmd)
	cmd.Flags().IntVar(&opts.limit, "limit", 10, "maximum number of hits, at most 100")
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"revision":N,"hits":[{"ident":…,"toolset":…,"tool":…,"title":…,"description":…}]}`)
	return cmd
}

// jsonSearch is the --json output of quiver registry search: the API's
// search body.
type jsonSearch struct {
	Revision int64           `json:"revision"`
	Hits     []jsonSearchHit `json:"hits"`
}

type jsonSearchHit struct {
	Ident       string `json:"ident"`
	Toolset     string `json:"toolset"`
	Tool        string `json:"tool"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

func runRegistrySearch(ctx context.Context, w io.Writer, query string, opts registrySearchOptions) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	res, err := opts.reg.client.Search(ctx, &gen.SearchPayload{Q: query, Limit: opts.limit})
	if err != nil {
		return opts.reg.fail(err)
	}
	out := jsonSearch{Revision: res.Revision, Hits: make([]jsonSearchHit, 0, len(res.Hits))}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, jsonSearchHit{Ident: h.Ident, Toolset: h.Toolset, Tool: h.Tool, Title: h.Title, Description: deref(h.Description)})
	}
	if opts.json {
		return writeJSON(w, out)
	}
	if len(out.Hits) == 0 {
		_, err := fmt.Fprintf(w, "No tool of the registry at %s matches %s (catalog revision %d).\n", opts.reg.url, echo(query), res.Revision)
		return err
	}
	fmt.Fprintf(w, "registry  %s (catalog revision %d)\n\n", opts.reg.url, res.Revision)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tIDENT\tTITLE")
	for i, h := range out.Hits {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", i+1, h.Ident, oneLine(h.Title))
	}
	return tw.Flush()
}

// resolveOptions are the flags of quiver registry resolve.
type resolveOptions struct {
	reg     registryFlags
	version string
	json    bool
}

// newRegistryResolveCommand returns quiver registry resolve.
func newRegistryResolveCommand() *cobra.Command {
	var opts resolveOptions
	cmd := &cobra.Command{
		Use:   "resolve NAME [--version V] [--json]",
		Short: "Resolve a toolset: its registration, token and tools",
		Long: `Resolve a toolset as a consumer does before calling it: the version it
publishes, the fingerprint and revision of its active registration, the
token calls to it carry, and its tools. --version V pins the version: the
command fails (version_mismatch) unless the toolset publishes V. --json
prints the whole resolution, with the declaration: every tool's schemas
and metadata.`,
		Example: `  # with quiver serve running
  quiver registry resolve workspace
  quiver registry resolve workspace --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 || strings.TrimSpace(args[0]) == "":
				return usagef("missing toolset name: quiver registry resolve NAME (quiver registry ls lists them)")
			case len(args) > 1:
				return usagef("one toolset at a time: quiver registry resolve NAME, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("version") && opts.version == "" {
				return usagef(`--version "": name the version to pin, or leave --version out`)
			}
			return runResolve(cmd.Context(), cmd.OutOrStdout(), args[0], opts)
		},
	}
	opts.reg.addFlags(cmd)
	cmd.Flags().StringVar(&opts.version, "version", "", "fail unless the toolset publishes version `V`")
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"catalog_revision":N,"toolset":{"name":…,"version":…,"fingerprint":…,"revision":…,"token":…,"declaration":{…}}}`)
	return cmd
}

// jsonResolution is the --json output of quiver registry resolve: the
// API's resolve_toolset body.
type jsonResolution struct {
	CatalogRevision int64        `json:"catalog_revision"`
	Toolset         jsonResolved `json:"toolset"`
}

type jsonResolved struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Fingerprint string `json:"fingerprint"`
	Revision    string `json:"revision"`
	Token       string `json:"token"`
	Declaration any    `json:"declaration"`
}

// resolve resolves toolset name, pinned to version when it is not empty.
func (f *registryFlags) resolve(ctx context.Context, name, version string) (*gen.ResolveToolsetResult, error) {
	p := &gen.ResolveToolsetPayload{Name: name}
	if version != "" {
		p.Version = &version
	}
	res, err := f.client.ResolveToolset(ctx, p)
	if err != nil {
		return nil, f.fail(err)
	}
	return res, nil
}

func runResolve(ctx context.Context, w io.Writer, name string, opts resolveOptions) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	res, err := opts.reg.resolve(ctx, name, opts.version)
	if err != nil {
		return err
	}
	ts := res.Toolset
	if opts.json {
		return writeJSON(w, jsonResolution{CatalogRevision: res.CatalogRevision, Toolset: jsonResolved{
			Name: ts.Name, Version: deref(ts.Version), Fingerprint: ts.Fingerprint, Revision: ts.Revision,
			Token: ts.Token, Declaration: ts.Declaration,
		}})
	}
	decl, err := declarationOf(ts)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "toolset      %s\n", ts.Name)
	fmt.Fprintf(w, "version      %s\n", orDash(deref(ts.Version)))
	fmt.Fprintf(w, "fingerprint  %s\n", ts.Fingerprint)
	fmt.Fprintf(w, "revision     %s\n", ts.Revision)
	fmt.Fprintf(w, "token        %s\n", ts.Token)
	fmt.Fprintf(w, "registry     %s (catalog revision %d)\n", opts.reg.url, res.CatalogRevision)
	fmt.Fprintf(w, "tools        %d\n\n", len(decl.Tools))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tTITLE")
	for _, t := range decl.Tools {
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, oneLine(t.Title))
	}
	return tw.Flush()
}

// declarationOf decodes a resolved toolset's declaration.
func declarationOf(ts *gen.ResolvedToolset) (contract.ToolsetDeclaration, error) {
	var decl contract.ToolsetDeclaration
	raw, err := json.Marshal(ts.Declaration)
	if err == nil {
		err = json.Unmarshal(raw, &decl)
	}
	if err != nil {
		return decl, fmt.Errorf("toolset %s: the registry's declaration does not decode: %w", ts.Name, err)
	}
	return decl, nil
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// orDash returns s, or "-" when it is empty, for a table cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
