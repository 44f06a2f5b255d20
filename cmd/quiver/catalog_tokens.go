package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/tokencount"
	"github.com/quiver-go/quiver/model/tokencount/advertised"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// newCatalogCommand returns quiver catalog and its subcommands.
func newCatalogCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Inspect a tool catalog",
		Args:  noArgs,
		RunE:  helpWhenBare,
	}
	cmd.AddCommand(newCatalogTokensCommand())
	return cmd
}

// tokensOptions are the flags of quiver catalog tokens.
type tokensOptions struct {
	input           catalogInput
	inline          string
	inlineCount     int
	provider        string
	anthropicSearch string
	cacheAfterTools bool
	json            bool
}

// newCatalogTokensCommand returns quiver catalog tokens.
func newCatalogTokensCommand() *cobra.Command {
	var opts tokensOptions
	cmd := &cobra.Command{
		Use:   "tokens [--catalog FILE] [--provider openai|anthropic] [--anthropic-search bm25|regex|client] [--cache-after-tools] [--inline NAMES | --inline-count N] [--json]",
		Short: "Count the tokens a catalog's tool definitions cost in a request",
		Long: `Count the o200k_base tokens a request advertising the catalog loads into
the model's context: every tool inline (all-inline), every tool deferred
behind the search tool (search-only), and, with --inline or --inline-count,
the chosen tools inline and the rest deferred (split).

The bytes counted are the "tools" array the provider adapter sends: the
catalog's definitions as the runtime advertises them (its wire names, in
ident order; a file name with dots is an ident, one without belongs to the
toolset "catalog"), rendered by the adapter itself.

--provider openai (the default) counts the "tools" array of an OpenAI
Responses request: inline tools as functions and, when some are deferred,
the client-executed tool_search tool; deferred tools are not in the request.

--provider anthropic counts the "tools" array of an Anthropic Messages
request: every tool as a custom tool, deferred ones with
"defer_loading": true, then the search tool of --anthropic-search (the
hosted BM25 tool by default). Deferred definitions are sent but not loaded
into the model's context until a search finds them, so the count covers the
other definitions and the search tool. --cache-after-tools adds the
cache_control the adapter puts on the last tool. Anthropic's tokenizer is
not available offline: the o200k_base figure is an approximation.

--inline takes tool names separated by commas, each bare (openTable) or in
full (workspace.openTable); a bare name shared by several toolsets must be
given in full. --inline-count N takes the first N tools in file order.
--catalog tools.json counts your own catalog instead of the embedded one.`,
		Example: `  quiver catalog tokens
  quiver catalog tokens --inline openTable,applyFilter,runQuery
  quiver catalog tokens --provider anthropic --inline workspace.openTable,workspace.applyFilter,workspace.runQuery
  quiver catalog tokens --provider anthropic --anthropic-search client --cache-after-tools --inline-count 3
  quiver catalog tokens --inline-count 10 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			byName, byCount := cmd.Flags().Changed("inline"), cmd.Flags().Changed("inline-count")
			if byName && byCount {
				return usagef("--inline and --inline-count exclude each other: choose the inline tools by name or by count")
			}
			if byCount && opts.inlineCount < 0 {
				return usagef("--inline-count %d: want 0 or more", opts.inlineCount)
			}
			if !slices.Contains(advertised.Providers(), advertised.Provider(opts.provider)) {
				return usagef("--provider %q: want %s", opts.provider, providerList())
			}
			variant, ok := searchVariant(opts.anthropicSearch)
			if !ok {
				return usagef("--anthropic-search %q: want %s", opts.anthropicSearch, variantList())
			}
			if cmd.Flags().Changed("anthropic-search") && advertised.Provider(opts.provider) != advertised.ProviderAnthropic {
				return usagef("--anthropic-search applies to --provider anthropic only")
			}
			o := advertised.Options{AnthropicSearch: variant, Cache: model.CacheCheckpoints{AfterTools: opts.cacheAfterTools}}
			return runTokens(cmd.OutOrStdout(), opts, o, byName, byCount)
		},
	}
	opts.input.addFlags(cmd, "catalog `FILE` (MCP tools/list JSON); the embedded workspace catalog when omitted")
	cmd.Flags().StringVar(&opts.inline, "inline", "", "comma-separated `NAMES` of the tools to keep inline; the rest are deferred")
	cmd.Flags().IntVar(&opts.inlineCount, "inline-count", 0, "keep the first `N` tools of the file inline; the rest are deferred")
	cmd.Flags().StringVar(&opts.provider, "provider", string(advertised.ProviderOpenAI), "provider adapter whose request to count: "+providerList())
	cmd.Flags().StringVar(&opts.anthropicSearch, "anthropic-search", anthropic.SearchBM25.String(), "search variant of the Anthropic adapter: "+variantList())
	cmd.Flags().BoolVar(&opts.cacheAfterTools, "cache-after-tools", false, "count the request of an agent with a cache checkpoint after the tools (cache_control on Anthropic; OpenAI ignores it)")
	cmd.Flags().BoolVar(&opts.json, "json", false, `print {"provider":…,"encoding":…,["approximate":true,]"tools":N,"shapes":[{"name":…,"inline":N,"deferred":N,"tokens":N}]}`)
	return cmd
}

// providerList names the valid --provider values, e.g. "openai or
// anthropic".
func providerList() string {
	ps := advertised.Providers()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return orList(names)
}

// searchVariants are the Anthropic adapter's search variants.
var searchVariants = []anthropic.SearchVariant{anthropic.SearchBM25, anthropic.SearchRegex, anthropic.SearchClient}

// searchVariant returns the variant named name ("bm25", "regex", "client").
func searchVariant(name string) (anthropic.SearchVariant, bool) {
	for _, v := range searchVariants {
		if v.String() == name {
			return v, true
		}
	}
	return 0, false
}

// variantList names the valid --anthropic-search values.
func variantList() string {
	names := make([]string, len(searchVariants))
	for i, v := range searchVariants {
		names[i] = v.String()
	}
	return orList(names)
}

// jsonTokens is the --json output of quiver catalog tokens. Approximate is
// present, and true, only when the count uses a vocabulary other than the
// provider's own (anthropic).
type jsonTokens struct {
	Provider    advertised.Provider `json:"provider"`
	Encoding    string              `json:"encoding"`
	Approximate bool                `json:"approximate,omitempty"`
	Tools       int                 `json:"tools"`
	Shapes      []advertised.Shape  `json:"shapes"`
}

func runTokens(w io.Writer, opts tokensOptions, o advertised.Options, byName, byCount bool) error {
	c, err := opts.input.load()
	if err != nil {
		return err
	}
	var split func(string) bool
	switch {
	case byName:
		if split, err = inlineByName(c, opts.inline); err != nil {
			return err
		}
	case byCount:
		if opts.inlineCount > len(c.Tools) {
			return fmt.Errorf("--inline-count %d: %s has only %s", opts.inlineCount, c.Source, count(len(c.Tools), "tool", "tools"))
		}
		split = inlineFirst(c, opts.inlineCount)
	}
	provider := advertised.Provider(opts.provider)
	shapes, err := advertised.CompareFor(provider, c.Tools, split, o)
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(w, jsonTokens{
			Provider:    provider,
			Encoding:    tokencount.Encoding,
			Approximate: provider.Approximate(),
			Tools:       len(c.Tools),
			Shapes:      shapes,
		})
	}
	fmt.Fprintf(w, "catalog   %s: %s\n", c.Source, count(len(c.Tools), "tool", "tools"))
	_, searchTool, err := advertised.SearchTool(provider, o)
	if err != nil {
		return err
	}
	switch provider {
	case advertised.ProviderAnthropic:
		fmt.Fprintf(w, "counting  %s tokens of the \"tools\" array the Anthropic Messages adapter sends, loaded into context:\n", tokencount.Encoding)
		fmt.Fprintf(w, "          the non-deferred definitions and the %s search tool (%s);\n", o.AnthropicSearch, searchTool)
		fmt.Fprintf(w, "          deferred definitions (\"defer_loading\": true) are sent but not counted\n")
		fmt.Fprintf(w, "note      TOKENS is an approximation: Anthropic's tokenizer is not available offline,\n          so %s stands in\n\n", tokencount.Encoding)
	default:
		fmt.Fprintf(w, "counting  %s tokens of the \"tools\" array the OpenAI Responses adapter sends:\n", tokencount.Encoding)
		fmt.Fprintf(w, "          the inline definitions and, when some are deferred, the %s search tool\n\n", searchTool)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SHAPE\tINLINE\tDEFERRED\tTOKENS")
	for _, s := range shapes {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", s.Name, s.Inline, s.Deferred, s.Tokens)
	}
	return tw.Flush()
}

// inlineByName parses a comma-separated list of tool names, each bare or
// full; every name must designate exactly one tool of c. All the names that
// do not are reported, one per line.
func inlineByName(c *catalogfile.Catalog, list string) (func(string) bool, error) {
	set := make(map[string]bool)
	given := make(map[string]bool)
	var errs []error
	for n := range strings.SplitSeq(list, ",") {
		if n = strings.TrimSpace(n); n == "" || given[n] {
			continue
		}
		given[n] = true
		name, err := c.Resolve(n)
		if err != nil {
			errs = append(errs, fmt.Errorf("--inline: %w", err))
			continue
		}
		set[name] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return func(name string) bool { return set[name] }, nil
}

// inlineFirst keeps the first n tools of c inline.
func inlineFirst(c *catalogfile.Catalog, n int) func(string) bool {
	set := make(map[string]bool, n)
	for _, t := range c.Tools[:n] {
		set[t.Name] = true
	}
	return func(name string) bool { return set[name] }
}
