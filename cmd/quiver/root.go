package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// run executes the command line args, writing results to stdout and errors
// to stderr, and returns the exit status (see exitOK).
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run under ctx: a command that serves (quiver registry
// serve) stops gracefully when ctx ends, as it does on SIGINT or SIGTERM.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil {
		printError(stderr, cmd, err)
	}
	return exitCode(err)
}

// newRootCommand returns the quiver command with all its subcommands.
func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "quiver",
		Short: "Quiver: tool search and tool surfaces for LLM agents",
		Long: `Quiver is a toolkit for LLM agents that reach many tools. This command serves
the example toolsets to MCP clients through a registry (quiver serve), ranks
a catalog's tools for a request, evaluates the rankers on labelled queries,
measures what advertising a catalog costs in tokens, runs the tool registry
and calls the tools registered in it, shows an application's agent runs
from its run log, and benchmarks the registry and the MCP server.

Without --catalog, commands use the embedded example catalog
(internal/catalogs/workspace.json).

Exit status: 0 on success, 1 on a failure, 2 on a usage error (an unknown
command or flag, a missing argument, a bad flag value).`,
		Example: `  quiver search "export this table to csv"
  quiver search eval --compare
  quiver catalog tokens --inline-count 5
  quiver --version
  # with quiver serve running
  quiver registry ls`,
		Version:       version(),
		Args:          noArgs,
		RunE:          helpWhenBare,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetVersionTemplate("quiver {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newServeCommand(), newSearchCommand(), newCatalogCommand(), newRegistryCommand(), newRunsCommand(), newBenchCommand())
	root.SetHelpCommand(newHelpCommand())
	return root
}

// newHelpCommand returns quiver help, which, unlike cobra's own, treats an
// unknown topic as a usage error rather than printing the root's help and
// succeeding.
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "help [command]",
		Short:   "Help about any command",
		Example: `  quiver help search eval`,
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return usagef("unknown help topic %q: 'quiver --help' lists the commands", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// noArgs refuses positional arguments on a command that only groups
// subcommands.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return nil
}

// helpWhenBare prints the help of a command that only groups subcommands.
func helpWhenBare(cmd *cobra.Command, _ []string) error {
	return cmd.Help()
}

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
