package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/examples/catalogs"
	"github.com/quiver-go/quiver/search/eval"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// Exit statuses of the command.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError is a mistake in how the command was invoked: a missing or
// extra argument, an unknown or conflicting flag.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// run executes the command line args, writing results to stdout and errors
// to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "quiver: %v\n", err)
	if errors.As(err, new(*usageError)) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitUsage
	}
	return exitError
}

// newRootCommand returns the quiver command with all its subcommands.
func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "quiver",
		Short: "Quiver: tool search and tool surfaces for LLM agents",
		Long: `Quiver is a toolkit for LLM agents that reach many tools. This command ranks
a catalog's tools for a request, evaluates the rankers on labelled queries,
and measures what advertising a catalog costs in tokens.

Without --catalog, commands use the embedded example catalog
(examples/catalogs/workspace.json).`,
		Args:          noArgs,
		RunE:          helpWhenBare,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})
	root.AddCommand(newSearchCommand(), newCatalogCommand())
	return root
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

// embeddedSuffix marks the sources of embedded files in messages.
const embeddedSuffix = " (embedded)"

// loadCatalog reads the catalog file at path, or the embedded workspace
// catalog when path is empty.
func loadCatalog(path string) (*catalogfile.Catalog, error) {
	if path == "" {
		return catalogfile.Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile+embeddedSuffix)
	}
	return catalogfile.Load(path)
}

// loadQueries reads the JSON Lines query file at path, or the embedded
// workspace queries when path is empty.
func loadQueries(path string) ([]eval.Query, string, error) {
	if path == "" {
		source := catalogs.WorkspaceQueriesFile + embeddedSuffix
		qs, err := eval.ReadQueries(bytes.NewReader(catalogs.WorkspaceQueries()), source)
		return qs, source, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("queries: %w", err)
	}
	defer f.Close()
	qs, err := eval.ReadQueries(f, path)
	return qs, path, err
}
