package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/internal/boundedinput"
	"github.com/quiver-go/quiver/internal/httpguard"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/stores"
)

// shutdownTimeout bounds how long a stop waits for requests in flight.
const shutdownTimeout = 10 * time.Second

// serveOptions are the flags of quiver registry serve.
type serveOptions struct {
	addr      string
	data      dataFolder
	keys      string
	maxBody   string
	leaseTTL  time.Duration
	retention time.Duration
	// resultRetention is --result-retention (0: the record's retention).
	resultRetention time.Duration
	forgetPayloads  bool
	// maxCallsPerKey is --max-calls-per-key (0: no limit).
	maxCallsPerKey int
	store          storeFlags
	tls            tlsFlags
}

// newRegistryServeCommand returns quiver registry serve.
func newRegistryServeCommand() *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--data DIR] [--keys FILE] [--tls-cert FILE --tls-key FILE | --insecure-http] [--store embedded|redis [--redis-url URL | --redis-url-file FILE]] [--max-body SIZE] [--lease-ttl D] [--retention D] [--result-retention D] [--forget-payloads] [--max-calls-per-key N]",
		Short: "Run a tool registry node",
		Long: `Run a tool registry on --addr: the API under /v1, its OpenAPI document at
/openapi.json and the probes /healthz and /readyz. Its state is kept in an
embedded bbolt store, registry.db in the data folder --data DIR (created if
missing, 0700; a folder every user may write to is refused); one registry
at a time may use a data folder. With --store redis --redis-url URL its
state is in Redis instead, and several nodes started with the same Redis
(and --redis-prefix) are one registry: any node accepts a call, the node
holding the provider's stream hands it over (docs/registry.md, "Several
nodes"). --redis-url defaults to $QUIVER_REDIS_URL; a URL with a password
belongs there or in --redis-url-file FILE, since every user of the machine
can read a process's command line (ps).

--keys FILE holds the API keys: {"keys": [{"name": "ci", "key": "<secret>"
(or "sha256": "<hex digest of the secret>"), "role": "provider", "consumer"
or "admin", "toolsets": ["records.*"], "confirm": ["workspace.*"]}]}, a
provider key listing the globs of the toolsets it may publish, a consumer
key the globs (toolset.tool) of the confirmation-gated tools it may call:
without "confirm" a consumer's call of a gated tool is refused
(forbidden), while an admin key, and every request without --keys, may
call them all. The file must be readable by you only
(chmod 600): one its group or others may read is refused. SIGHUP reloads
it without dropping a connection: a key added is accepted and a key
removed refused from the next request on; a file that does not read or
parse is logged and the keys in force stay. Without --keys every request
is served as admin, so the registry starts only on a loopback address
(127.0.0.1, ::1, localhost), and answers only requests naming it (Host),
sent by programs rather than web pages (Origin) with application/json
bodies. Keys are checked before a request's body is read.

--tls-cert FILE --tls-key FILE serve HTTPS. A non-loopback --addr needs
them, so that keys never cross the network in clear, unless
--insecure-http says a proxy in front terminates TLS.

A banner on stdout says where it listens; then the registry logs one line
per provider event on stderr. SIGINT (Ctrl-C) or SIGTERM stops it
gracefully: calls still waiting are answered unavailable (a retry with the
same call id gets their outcome from the next registry on this data
folder), provider streams end, the store is closed.

--max-body bounds a request body (413 above it), --lease-ttl is how long a
provider's lease lasts without renewal, --retention how long settled call
records are kept for retries to read. --result-retention keeps results and
error messages a shorter time than their records (a retry after it reads
result_expired and runs nothing); --forget-payloads keeps only the digest
of a settled call's payload. --max-calls-per-key bounds the calls one key
may have open at this node, queued or running, until they settle (a call
beyond it is refused at once as key_limit, 429; 0 lifts the bound).`,
		Example: `  quiver registry serve
  quiver registry serve --addr 127.0.0.1:7421 --data registry-data --lease-ttl 30s
  # with redis-server on 127.0.0.1:6379
  quiver registry serve --addr 127.0.0.1:7422 --store redis --redis-url redis://127.0.0.1:6379/0`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			maxBody, err := opts.check()
			if err != nil {
				return err
			}
			return runServe(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts, maxBody)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", defaultRegistryAddr, "`HOST:PORT` to listen on (port 0 picks a free one)")
	opts.data.addFlag(cmd)
	f.StringVar(&opts.keys, "keys", "", "API keys `FILE`; without it the registry serves everyone as admin, on loopback only")
	f.StringVar(&opts.maxBody, "max-body", strings.ReplaceAll(boundedinput.FormatSize(server.DefaultMaxBodyBytes), " ", ""), "largest request body `SIZE`, e.g. 4MiB or 10MB")
	f.DurationVar(&opts.leaseTTL, "lease-ttl", server.DefaultLeaseTTL, "how long a provider's lease lasts without renewal, at least 1s")
	f.DurationVar(&opts.retention, "retention", server.DefaultRetention, "how long settled call records are kept")
	f.DurationVar(&opts.resultRetention, "result-retention", 0, "how long a settled call keeps its result and error message, at most --retention (default: as long as its record)")
	f.BoolVar(&opts.forgetPayloads, "forget-payloads", false, "keep only the digest of a settled call's payload")
	f.IntVar(&opts.maxCallsPerKey, "max-calls-per-key", server.DefaultMaxCallsPerKey, "calls one key may have open (queued or running) at this node; 0: no limit")
	opts.store.addFlags(cmd)
	opts.tls.addFlags(cmd)
	return cmd
}

// check validates the flags and returns --max-body in bytes.
func (o *serveOptions) check() (int64, error) {
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return 0, usagef("--addr %q: want HOST:PORT, e.g. %s", o.addr, defaultRegistryAddr)
	}
	if o.keys == "" && !loopbackHost(host) {
		return 0, usagef("--addr %s is not a loopback address and there is no --keys: pass --keys FILE, so that only holders of its keys reach the registry, or listen on loopback (--addr %s)", o.addr, defaultRegistryAddr)
	}
	if err := o.tls.check(host); err != nil {
		return 0, err
	}
	if o.maxCallsPerKey < 0 {
		return 0, usagef("--max-calls-per-key %d is negative: give the calls one key may have open, or 0 for no limit", o.maxCallsPerKey)
	}
	maxBody, err := boundedinput.ParseSize(o.maxBody)
	if err != nil {
		return 0, usagef("--max-body %q: want a size such as 4MiB, 512KiB or 10MB", o.maxBody)
	}
	if o.leaseTTL < time.Second {
		return 0, usagef("--lease-ttl %s: want at least 1s", o.leaseTTL)
	}
	if o.retention <= 0 {
		return 0, usagef("--retention %s: want a positive duration", o.retention)
	}
	if o.resultRetention < 0 || o.resultRetention > o.retention {
		return 0, usagef("--result-retention %s: want a duration from 0 (as long as --retention) to --retention (%s)", o.resultRetention, o.retention)
	}
	if err := o.store.check(); err != nil {
		return 0, err
	}
	return maxBody, nil
}

// loopbackHost reports whether host names the loopback interface:
// localhost or a loopback IP. An empty host (all interfaces) does not.
func loopbackHost(host string) bool { return httpguard.LoopbackHost(host) }

// runServe runs the registry until ctx ends or a signal stops it.
func runServe(ctx context.Context, stdout, stderr io.Writer, opts serveOptions, maxBody int64) (err error) {
	serverGC()
	var keys *server.Keys
	if opts.keys != "" {
		if keys, err = readKeysFile(opts.keys); err != nil {
			return err
		}
	}
	dir := ""
	if opts.store.kind == stores.Embedded {
		if dir, _, err = opts.data.open(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("listen on %s: the address is in use (is a registry running there already?): stop what listens there, or pass --addr with another port", opts.addr)
		}
		return fmt.Errorf("listen on %s: %w", opts.addr, unwrapOpError(err))
	}
	defer ln.Close()
	if tcp, ok := ln.Addr().(*net.TCPAddr); keys == nil && (!ok || !tcp.IP.IsLoopback()) {
		return fmt.Errorf("--addr %s listens on %s, not on loopback, and there is no --keys: pass --keys FILE", opts.addr, ln.Addr())
	}

	tlsConfig, err := opts.tls.config()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	n, err := node.Start(ctx, node.Config{
		Store: opts.store.config(dir),
		Server: server.Config{
			Keys: keys, Logger: log,
			MaxBodyBytes: maxBody, LeaseTTL: opts.leaseTTL, Retention: opts.retention,
			ResultRetention: opts.resultRetention, ForgetPayloads: opts.forgetPayloads,
			MaxCallsPerKey: callsPerKey(opts.maxCallsPerKey),
		},
		Listener:        ln,
		TLS:             tlsConfig,
		ShutdownTimeout: shutdownTimeout,
	})
	if err != nil {
		return err
	}
	// Close is idempotent: this one stops the node when serving fails.
	defer n.Close()

	url := n.URL
	access := "open (loopback only, no --keys)"
	if keys != nil {
		access = opts.keys
	}
	fmt.Fprintf(stdout, "registry  %s\n", url)
	fmt.Fprintf(stdout, "openapi   %s/openapi.json\n", url)
	fmt.Fprintf(stdout, "store     %s\n", n.Describe)
	if dir != "" {
		fmt.Fprintf(stdout, "data      %s\n", dir)
	}
	fmt.Fprintf(stdout, "keys      %s\n", access)
	// SIGHUP reloads the keys file; without one it keeps its default
	// action (the process ends), as before keys could be reloaded.
	var hup chan os.Signal
	if keys != nil {
		hup = make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
		fmt.Fprintf(stdout, "Serving until Ctrl-C (SIGINT) or SIGTERM; SIGHUP reloads %s.\n", opts.keys)
	} else {
		fmt.Fprintf(stdout, "Serving until Ctrl-C (SIGINT) or SIGTERM.\n")
	}

	sctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
wait:
	for {
		select {
		case err := <-n.Failed():
			return fmt.Errorf("serve on %s: %w", url, err)
		case <-hup:
			reloadKeys(n.Service, opts.keys, log)
		case <-sctx.Done():
			break wait
		}
	}
	// The service first: waiting consumers are answered, provider
	// streams end, so that no request holds the shutdown back (Close).
	if err := n.Close(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "Registry stopped.")
	return nil
}

// readKeysFile reads --keys: refused when its group or others may read it
// (checkSecretFileMode), then parsed.
func readKeysFile(file string) (*server.Keys, error) {
	if err := checkSecretFileMode("--keys", file); err != nil {
		return nil, err
	}
	return server.ReadKeysFile(file)
}

// reloadKeys reads the keys file again and puts its keys in force, logging
// one line: how many keys from which file, or why the keys in force stay.
// It never logs a key: the errors of a keys file name entries by their
// index and name.
func reloadKeys(svc *server.Service, file string, log *slog.Logger) {
	keys, err := readKeysFile(file)
	if err == nil {
		err = svc.SetKeys(keys)
	}
	if err != nil {
		log.Error("registry: keys not reloaded, the keys in force stay", "file", file, "err", err)
		return
	}
	log.Info("registry: keys reloaded", "file", file, "keys", keys.Len())
}

// unwrapOpError drops the "listen tcp …" prefix that repeats the address.
func unwrapOpError(err error) error {
	if oe, ok := errors.AsType[*net.OpError](err); ok && oe.Err != nil {
		return oe.Err
	}
	return err
}

// callsPerKey is server.Config.MaxCallsPerKey for --max-calls-per-key n:
// 0 lifts the bound (negative in the config, whose 0 is the default).
func callsPerKey(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
