package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/internal/boundedinput"
	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/search/eval"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// embeddedSuffix marks the sources of embedded files in messages.
const embeddedSuffix = " (embedded)"

// stdinPath is the --catalog value that reads the catalog from stdin, and
// stdinSource how messages name it.
const (
	stdinPath   = "-"
	stdinSource = "stdin"
)

// catalogInput is the catalog a command reads and how: the --catalog,
// --lenient and --max-input-size flags, shared by every command that takes
// a catalog. A command registers them with addFlags and reads with load.
type catalogInput struct {
	// path is --catalog: a file, "-" for stdin, or "" (not given) for the
	// embedded workspace catalog.
	path string
	// lenient is --lenient: name problems are warnings.
	lenient bool
	// maxSize is --max-input-size as written, and limit its value in
	// bytes once checked.
	maxSize string
	limit   int64
	// stdin and stderr are the command's, taken when its flags are
	// checked.
	stdin  io.Reader
	stderr io.Writer
}

// addFlags registers the catalog flags on cmd, usage describing --catalog,
// and checks them before cmd runs.
func (in *catalogInput) addFlags(cmd *cobra.Command, usage string) {
	f := cmd.Flags()
	f.StringVar(&in.path, "catalog", "", usage+`; "-" reads it from stdin`)
	f.BoolVar(&in.lenient, "lenient", false, "read a catalog whose tool names the runtime or a provider would refuse, warning of each on stderr")
	f.StringVar(&in.maxSize, "max-input-size", strings.ReplaceAll(boundedinput.FormatSize(catalogfile.DefaultMaxSize), " ", ""), "largest input `SIZE` read (the catalog, the queries), e.g. 200MiB or 1GB")
	pre := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if err := in.check(c); err != nil {
			return err
		}
		if pre != nil {
			return pre(c, args)
		}
		return nil
	}
}

// check validates the flags before anything is read, and takes the
// command's stdin and stderr.
func (in *catalogInput) check(cmd *cobra.Command) error {
	if cmd.Flags().Changed("catalog") && in.path == "" {
		return usagef(`--catalog "": name a catalog file, or "-" to read stdin; leave --catalog out for the embedded workspace catalog`)
	}
	n, err := boundedinput.ParseSize(in.maxSize)
	if err != nil {
		return usagef("--max-input-size %q: want a size such as 64MiB, 500MB or 1GiB", in.maxSize)
	}
	in.limit, in.stdin, in.stderr = n, cmd.InOrStdin(), cmd.ErrOrStderr()
	return nil
}

// given reports whether --catalog names a catalog to read (a file or
// stdin) rather than leaving the embedded one.
func (in *catalogInput) given() bool { return in.path != "" }

// options returns the read options the flags ask for.
func (in *catalogInput) options() catalogfile.ReadOptions {
	return catalogfile.ReadOptions{MaxSize: in.limit, Lenient: in.lenient}
}

// load reads the catalog: the file --catalog names, stdin for "-", or the
// embedded workspace catalog. The catalog's Source says which ("stdin",
// "… (embedded)"). Warnings go to stderr, each on a line of its own.
func (in *catalogInput) load() (*catalogfile.Catalog, error) {
	var (
		c   *catalogfile.Catalog
		err error
	)
	switch in.path {
	case "":
		c, err = in.options().Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile+embeddedSuffix)
	case stdinPath:
		c, err = in.options().Read(in.stdin, stdinSource)
	default:
		c, err = in.options().Load(in.path)
	}
	if err != nil {
		return nil, withHint(err)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(in.stderr, "quiver: warning: %v\n", w)
	}
	return c, nil
}

// loadQueries reads the JSON Lines query file at path, under the same size
// limit as the catalog, or the embedded workspace queries when path is
// empty. It returns the queries and how messages name their source.
func (in *catalogInput) loadQueries(path string) ([]eval.Query, string, error) {
	if path == "" {
		source := catalogs.WorkspaceQueriesFile + embeddedSuffix
		qs, err := eval.ReadQueries(bytes.NewReader(catalogs.WorkspaceQueries()), source)
		return qs, source, err
	}
	f, err := boundedinput.Open(path, in.limit)
	if err != nil {
		return nil, "", withHint(fmt.Errorf("queries: %w", err))
	}
	defer f.Close()
	qs, err := eval.ReadQueries(f, path)
	return qs, path, withHint(err)
}

// withHint adds to err the flag that gets past it: --max-input-size for an
// input over the limit, --lenient for a tool name the runtime refuses.
func withHint(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, boundedinput.ErrTooLarge):
		return fmt.Errorf("%w; --max-input-size raises the limit", err)
	case errors.Is(err, catalogfile.ErrInvalidName):
		return fmt.Errorf("%w (--lenient reads the catalog anyway, with a warning for each name)", err)
	}
	return err
}
