package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	goahttp "goa.design/goa/v3/http"
	goa "goa.design/goa/v3/pkg"

	"github.com/quiver-go/quiver/registry"
)

// The registry's address: where quiver registry serve listens by default
// and where the client commands look for it.
const (
	defaultRegistryAddr = "127.0.0.1:7420"
	defaultRegistryURL  = "http://" + defaultRegistryAddr
	// envRegistryURL and envRegistryKey stand for --registry and --key
	// when those are not given.
	envRegistryURL = "QUIVER_REGISTRY_URL"
	envRegistryKey = "QUIVER_REGISTRY_KEY"
)

// newRegistryCommand returns quiver registry and its subcommands.
func newRegistryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Run the tool registry, and list, search, resolve and call its tools",
		Long: `The tool registry: providers publish toolsets to it, consumers list, search
and resolve them and call their tools through it. quiver registry serve runs
one; the other commands are its clients: they talk to --registry URL
($QUIVER_REGISTRY_URL, a running quiver serve's registry, or
` + defaultRegistryURL + `) with the API key in --key-file FILE,
$QUIVER_REGISTRY_KEY or --key KEY (or quiver serve's consumer key), print
tables by default and JSON with --json; each one's --help gives the order. Prefer --key-file or the environment: every user of
the machine can read a process's command line (ps), not its files or its
environment.

A failure the registry reports is printed with its name (validation_error,
unknown_toolset, admission_conflict…) and its message, and exits 1.`,
		Args: noArgs,
		RunE: helpWhenBare,
	}
	cmd.AddCommand(newRegistryServeCommand(), newRegistryLsCommand(), newRegistrySearchCommand(),
		newRegistryResolveCommand(), newRegistryCallCommand())
	return cmd
}

// registryFlags are --registry, --key and --key-file, shared by the client
// commands. A command registers them with addFlags; connect gives its
// client.
type registryFlags struct {
	url, key string
	// keyFile is --key-file: the file holding the key, which keeps it out
	// of the process list that --key shows every user.
	keyFile string
	// urlFrom names where url came from (--registry, the environment or
	// quiver serve's endpoints file), for messages.
	urlFrom string
	// data is --data: the data folder whose endpoints file names the
	// registry of a running quiver serve.
	data   dataFolder
	client *registry.Client
}

// addFlags registers --registry, --key, --key-file and --data on cmd and
// builds the client before cmd runs: a malformed URL or key, or both --key
// and --key-file, is a usage error. cmd's --help says where the registry
// and the key come from (registryLookupHelp).
func (f *registryFlags) addFlags(cmd *cobra.Command) {
	cmd.Long += "\n\n" + registryLookupHelp
	cmd.Flags().StringVar(&f.url, "registry", defaultRegistryURL, "registry `URL`; when not given: $"+envRegistryURL+", then a running quiver serve's (--data), then "+defaultRegistryURL)
	cmd.Flags().StringVar(&f.key, "key", "", "API `KEY` sent to the registry (every user sees it in ps: prefer --key-file or $"+envRegistryKey+"); $"+envRegistryKey+" when neither --key nor --key-file is given")
	cmd.Flags().StringVar(&f.keyFile, "key-file", "", "read the API key from `FILE` (readable by you only, one trailing newline dropped)")
	pre := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if err := f.connect(c); err != nil {
			return err
		}
		if pre != nil {
			return pre(c, args)
		}
		return nil
	}
	// Registered after the hook above, so that its own check of --data
	// runs first.
	f.data.addFlag(cmd)
	cmd.Flags().Lookup("data").Usage = "data folder `DIR` of the quiver serve whose registry to use when neither --registry nor $" + envRegistryURL + " is given"
}

// connect resolves the flags against the environment and quiver serve's
// endpoints file, in registryLookupHelp's order, and builds the client.
func (f *registryFlags) connect(cmd *cobra.Command) error {
	f.urlFrom = "--registry"
	var found *discovered
	switch env := os.Getenv(envRegistryURL); {
	case cmd.Flags().Changed("registry"):
	case env != "":
		f.url, f.urlFrom = env, "$"+envRegistryURL
	default:
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		d, err := discoverServe(ctx, &f.data)
		if err != nil {
			return err
		}
		if d != nil {
			found = d
			f.url, f.urlFrom = d.url, "the registry of quiver serve ("+d.from+")"
		}
	}
	keyFrom := "--key"
	keyGiven, fileGiven := cmd.Flags().Changed("key"), cmd.Flags().Changed("key-file")
	if !keyGiven && !fileGiven && os.Getenv(envRegistryKey) == "" && found != nil {
		key, err := readSecretFile("quiver serve's consumer key file", found.keyFile)
		if err != nil {
			return err
		}
		f.key, keyFrom = key, found.keyFile
	}
	switch {
	case keyGiven && fileGiven:
		return usagef("--key and --key-file both give the API key: pass one (--key-file keeps it out of the process list)")
	case found != nil && !keyGiven && !fileGiven && os.Getenv(envRegistryKey) == "":
	case fileGiven:
		if f.keyFile == "" {
			return usagef(`--key-file "": name the file holding the key`)
		}
		key, err := readSecretFile("--key-file", f.keyFile)
		if err != nil {
			return err
		}
		f.key, keyFrom = key, "--key-file "+f.keyFile
	case keyGiven:
	default:
		if env := os.Getenv(envRegistryKey); env != "" {
			f.key, keyFrom = env, "$"+envRegistryKey
		}
	}
	if strings.ContainsAny(f.key, " \t\r\n") {
		return usagef("%s: an API key has no spaces", keyFrom)
	}
	f.url = strings.TrimRight(f.url, "/")
	var opts []registry.ClientOption
	if f.key != "" {
		opts = append(opts, registry.WithAPIKey(f.key))
	}
	c, err := registry.NewClient(f.url, opts...)
	if err != nil {
		// The client's message names the URL again; a URL that does not
		// parse gets the parser's message, which says nothing of the form
		// wanted.
		msg, _ := strings.CutPrefix(err.Error(), fmt.Sprintf("registry: URL %q: ", f.url))
		if !strings.Contains(msg, "want") {
			msg = "want http(s)://host:port, e.g. " + defaultRegistryURL
		}
		return usagef("%s %q: %s", f.urlFrom, f.url, msg)
	}
	f.client = c
	return nil
}

// fail turns an error of a registry call into the command's message: a
// registry error as its name and message, with what to do where the
// registry cannot say it; a registry that does not answer as such.
func (f *registryFlags) fail(err error) error {
	if err == nil {
		return nil
	}
	if se, ok := errors.AsType[*goa.ServiceError](err); ok && se.Name != "" {
		msg := fmt.Sprintf("%s: %s", se.Name, se.Message)
		switch se.Name {
		case registry.ErrUnauthorized:
			msg += fmt.Sprintf(" (pass the key with --key-file FILE, --key KEY or $%s)", envRegistryKey)
		case registry.ErrForbidden:
			msg += " (use a key whose role allows it)"
		}
		return errors.New(msg)
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("no registry answers at %s (connection refused): start one with 'quiver serve' or 'quiver registry serve', or give its address with --registry URL or $%s", f.url, envRegistryURL)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("registry %s did not answer in time: %w", f.url, unwrapClientError(err))
	}
	return fmt.Errorf("registry %s: %w", f.url, unwrapClientError(err))
}

// unwrapClientError returns the transport error inside a Goa client error,
// or its message: its own Error() adds the service and method names.
func unwrapClientError(err error) error {
	if ce, ok := errors.AsType[*goahttp.ClientError](err); ok {
		if ce.Err != nil {
			return ce.Err
		}
		return errors.New(ce.Message)
	}
	return err
}
