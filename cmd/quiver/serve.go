package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/mcp/gateway"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store/boltstore"
	"github.com/quiver-go/quiver/registry/stores"
	"github.com/quiver-go/quiver/tools"
)

// defaultServeAddr is where quiver serve listens for MCP clients.
const defaultServeAddr = "127.0.0.1:7400"

// quickServeOptions are the flags of quiver serve.
type quickServeOptions struct {
	addr      string
	data      dataFolder
	keys      string
	exposeAll bool
	stdio     bool
	tls       tlsFlags
	// approve are the gated tools (--approve) quiver serve's MCP clients
	// may call: the grant of its MCP server's registry key.
	approve []string
	// callsPerClient is --max-calls-per-client (0: no limit).
	callsPerClient int
	sessions       sessionFlags
	// upstreams is --upstreams: the mcpServers file of the servers to
	// front instead of the example toolset ("" for none).
	upstreams string
	// undeclared is --undeclared: the tier a tool that declares none
	// needs ("" serves such tools to no one).
	undeclared string
	// callTool is --call-tool: a tool list that never changes.
	callTool bool
}

// sessionFlags bound the MCP endpoint's sessions and request bodies; 0
// means no bound.
type sessionFlags struct {
	idle          time.Duration
	max, perKey   int
	bodyTimeout   time.Duration
	readingBodies int
}

func (f *sessionFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&f.idle, "session-timeout", mcp.DefaultSessionTimeout, "drop an MCP session that sent no request for this long, freeing it (0: never)")
	fl.IntVar(&f.max, "max-sessions", mcp.DefaultMaxSessions, "MCP sessions held at once; one more is refused with 503 (0: no bound)")
	fl.IntVar(&f.perKey, "max-sessions-per-key", mcp.DefaultMaxSessionsPerCredential, "MCP sessions one credential holds at once (clients without one count as one); one more is refused with 429 (0: no bound)")
	fl.DurationVar(&f.bodyTimeout, "body-timeout", mcp.DefaultBodyTimeout, "how long a request's body may take to arrive; 408 after it (0: no bound)")
	fl.IntVar(&f.readingBodies, "max-reading-bodies", mcp.DefaultMaxReadingBodies, "request bodies read at once; one more is answered 429 (0: no bound)")
}

// check refuses negative bounds.
func (f *sessionFlags) check() error {
	for _, c := range []struct {
		name string
		neg  bool
	}{
		{"--session-timeout", f.idle < 0}, {"--max-sessions", f.max < 0}, {"--max-sessions-per-key", f.perKey < 0},
		{"--body-timeout", f.bodyTimeout < 0}, {"--max-reading-bodies", f.readingBodies < 0},
	} {
		if c.neg {
			return usagef("%s is negative: pass a positive value, or 0 for no bound", c.name)
		}
	}
	return nil
}

// apply sets cfg's bounds: a flag's 0 is the Config's "none" (negative).
func (f *sessionFlags) apply(cfg *mcp.Config) {
	none := func(v int) int {
		if v == 0 {
			return -1
		}
		return v
	}
	noneD := func(v time.Duration) time.Duration {
		if v == 0 {
			return -1
		}
		return v
	}
	cfg.SessionTimeout = noneD(f.idle)
	cfg.MaxSessions = none(f.max)
	cfg.MaxSessionsPerCredential = none(f.perKey)
	cfg.BodyTimeout = noneD(f.bodyTimeout)
	cfg.MaxReadingBodies = none(f.readingBodies)
}

// newServeCommand returns quiver serve.
func newServeCommand() *cobra.Command {
	var opts quickServeOptions
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--data DIR] [--keys FILE] [--tls-cert FILE --tls-key FILE | --insecure-http] [--expose-all] [--approve TOOL]... [--max-calls-per-client N] [--stdio] [--session-timeout D] [--max-sessions N] [--max-sessions-per-key N] [--body-timeout D] [--max-reading-bodies N] [--upstreams FILE] [--undeclared TIER] [--call-tool]",
		Short: "Serve your MCP servers, or the example toolsets, to MCP clients through a registry",
		Long: `Start a tool registry (its embedded store in the data folder --data DIR,
created if missing, 0700; a folder every user may write to is refused),
publish the records example's workspace toolset to it through a provider
in this process, and serve the registry's catalog to MCP clients at
http://--addr/mcp (streamable HTTP). The banner says where everything is
and how to connect Claude Desktop and the MCP Inspector.

A client sees the inline tools and search_tools; what a search finds joins
its tool list (notifications/tools/list_changed). --expose-all lists every
tool in its scope at once, for clients that cannot search. Tools that need
a person's confirmation are refused: MCP cannot ask. --approve TOOL
(toolset.tool, repeatable) serves one anyway: it is the grant ("confirm")
of the registry key the MCP server calls with, so the registry runs it
too, and only it.

--max-calls-per-client N bounds the calls one client (its credential with
--keys, its session without) may have open; a call beyond it is answered
key_limit at once, before the registry sees it (0: no limit).

--keys FILE maps bearer credentials to scopes, each tool being served to the
tiers at or above its declared exposure (read_only ⊂ staging ⊂ full):
{"clients": [{"name": "ide", "key": "<secret>", "tier": "read_only"}]},
readable by you only (chmod 600: a file its group or others may read is
refused). Without --keys every client gets the full tier, so quiver serve
listens only on a loopback address, and answers only requests naming it
(Host) sent by programs rather than web pages (Origin). --tls-cert FILE
--tls-key FILE serve the MCP endpoint over HTTPS; a non-loopback --addr
needs them, unless --insecure-http says a proxy in front terminates TLS.

The registry listens on a free loopback port with API keys generated at
every start: the admin, provider and consumer keys are written, readable by
you only, to registry-admin.key, registry-provider.key and
registry-consumer.key in the data folder (the banner names them; the keys
themselves are never printed). Its endpoints (pid, registry and MCP URLs)
go to serve.json there, removed when it stops: quiver registry ls, search,
resolve and call find the registry and the consumer key through it, with no
flag.

A quiver serve started while another runs on the same data folder attaches
to it: it serves MCP (over HTTP, or --stdio) from the running one's
registry, and neither opens the store nor publishes again, so quiver serve
--stdio runs beside quiver serve in either order. If the one it attached to
stops, every call is answered with an error saying so.

The endpoint bounds what clients hold: an MCP session that sends no request
for --session-timeout (5m) is dropped (its client gets 404 and starts a new
one); at most --max-sessions (1024) sessions at once, --max-sessions-per-key
(256) per credential, a further one refused with 503 or 429 saying which
bound and how to raise it; a request's body must arrive within
--body-timeout (30s), at most --max-reading-bodies (64) read at once.

--stdio serves one client over standard input and output instead (the
banner goes to standard error), as Claude Desktop starts a local server.
--upstreams FILE fronts your own MCP servers instead of the example
toolset: FILE is the mcpServers JSON MCP clients use ({"mcpServers":
{"files": {"command": "npx", "args": [...], "env": {...}}, "docs": {"url":
"https://...", "headers": {...}}}}), ${VAR} and ${VAR:-default} expanded
from the environment. Each server becomes a toolset named after its key,
published by a provider in this process, so search, scopes and the
registry's guarantees apply to its tools. A server may say the tier its
tools need ("exposure": "read_only", or per tool: "tools": {"write_file":
{"exposure": "staging"}}) and how many of its calls run at once
("maxConcurrentCalls", default 16). A tool the file gives no tier is served
to no one unless --undeclared TIER says which tier it needs. A server that
fails to start is in the banner and retried with backoff while the others
serve; its tools/list_changed republishes its toolset; one that dies is
started again. Secrets in the file are never logged. FILE must not be
writable by others (it names commands to run).

--call-tool keeps every client's tool list the same for the whole session:
search_tools answers with the found tools' schemas, and call_tool(name,
arguments) calls them (same scopes, admission and refusals), for clients
that read tools/list once and for prompt caches that a changing list
breaks. It cannot be combined with --expose-all.

SIGINT (Ctrl-C) or SIGTERM stops it.`,
		Example: `  quiver serve
  quiver serve --addr 127.0.0.1:7401 --expose-all
  # with mcp-servers.json, an mcpServers file, in the current folder
  quiver serve --addr 127.0.0.1:7402 --upstreams mcp-servers.json --undeclared read_only --call-tool`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			return runQuickServe(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", defaultServeAddr, "`HOST:PORT` the MCP endpoint listens on (port 0 picks a free one)")
	opts.data.addFlag(cmd)
	f.StringVar(&opts.keys, "keys", "", "client credentials `FILE`; without it every client gets the full tier, on loopback only")
	f.BoolVar(&opts.exposeAll, "expose-all", false, "list every tool in a client's scope at once, for clients that cannot search")
	f.BoolVar(&opts.stdio, "stdio", false, "serve one client over standard input and output")
	f.StringArrayVar(&opts.approve, "approve", nil, "serve the confirmation-gated `TOOL` (toolset.tool) anyway; repeatable")
	f.IntVar(&opts.callsPerClient, "max-calls-per-client", defaultCallsPerClient, "calls one MCP client may have open at once; 0: no limit")
	f.StringVar(&opts.upstreams, "upstreams", "", "front the MCP servers of this mcpServers `FILE` instead of the example toolset")
	f.StringVar(&opts.undeclared, "undeclared", "", "the `TIER` (read_only, staging or full) a tool that declares no exposure needs; without it such tools are served to no one")
	f.BoolVar(&opts.callTool, "call-tool", false, "keep each client's tool list fixed: found tools are called through call_tool(name, arguments)")
	opts.tls.addFlags(cmd)
	opts.sessions.addFlags(cmd)
	return cmd
}

// check validates the flags.
func (o *quickServeOptions) check() error {
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usagef("--addr %q: want HOST:PORT, e.g. %s", o.addr, defaultServeAddr)
	}
	if o.keys == "" && !o.stdio && !loopbackHost(host) {
		return usagef("--addr %s is not a loopback address and there is no --keys: pass --keys FILE, so that only holders of its credentials reach the tools, or listen on loopback (--addr %s)", o.addr, defaultServeAddr)
	}
	for _, name := range o.approve {
		if _, err := tools.ParseIdent(name); err != nil || strings.ContainsAny(name, "*?[\\") {
			return usagef("--approve %q: give one tool as toolset.tool, e.g. workspace.commitStagedEdits", name)
		}
	}
	if o.callsPerClient < 0 {
		return usagef("--max-calls-per-client %d is negative: give the calls one client may have open, or 0 for no limit", o.callsPerClient)
	}
	if err := o.sessions.check(); err != nil {
		return err
	}
	if o.undeclared != "" && tools.Exposure(o.undeclared).Rank() == 0 {
		return usagef("--undeclared %q: give the tier such tools need: read_only, staging or full", o.undeclared)
	}
	if o.callTool && o.exposeAll {
		return usagef("--call-tool and --expose-all both set: --expose-all lists every tool at once, --call-tool keeps a short list that never changes; pick one")
	}
	if o.stdio {
		return nil
	}
	return o.tls.check(host)
}

// runQuickServe runs the registry, the provider and the MCP server until
// ctx ends or a signal stops them. When another quiver serve already runs
// on the data folder, it attaches to it instead: its MCP server serves
// that one's registry, and it neither opens the store nor publishes.
func runQuickServe(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, opts quickServeOptions) (err error) {
	serverGC()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opts.keys != "" {
		if err := checkSecretFileMode("--keys", opts.keys); err != nil {
			return err
		}
	}
	creds, err := readClientKeys(opts.keys)
	if err != nil {
		return err
	}
	dir, _, err := opts.data.open()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	front := mcpFront{stdin: stdin, stdout: stdout, stderr: stderr, opts: opts, creds: creds, log: log}
	var upstreams *gateway.Config
	if opts.upstreams != "" {
		if upstreams, err = loadUpstreams(opts.upstreams); err != nil {
			return err
		}
	}
	if ep := runningServe(ctx, dir); ep != nil {
		if upstreams != nil {
			return upstreamsOnAttached(dir, ep)
		}
		return runAttached(ctx, front, dir, ep)
	}

	keys, err := newRegistryKeys(dir, opts.approve)
	if err != nil {
		return err
	}
	reg, err := startEmbeddedRegistry(ctx, dir, keys, log)
	if storeInUse(err) {
		// Another quiver serve may be starting on the folder: attach once
		// it says where it is.
		if ep := awaitRunningServe(ctx, dir); ep != nil {
			if upstreams != nil {
				return upstreamsOnAttached(dir, ep)
			}
			return runAttached(ctx, front, dir, ep)
		}
	}
	if err != nil {
		return err
	}
	defer reg.close()
	if err := keys.writeFiles(); err != nil {
		return err
	}
	banner := serveBanner{
		registry: reg.url, dir: dir, opts: opts, creds: creds,
		keys: fmt.Sprintf("%s (admin), %s (provider), %s (consumer): new at every start, readable by you only", keys.adminFile, keys.providerFile, keys.consumerFile),
	}
	serving := map[string]bool{}
	if upstreams != nil {
		gw, err := gateway.Start(ctx, upstreams, gateway.Options{Provider: reg.provider, Consumer: reg.consumer, Logger: log})
		if err != nil {
			return err
		}
		defer gw.Close()
		banner.upstreams = gw
		for _, srv := range upstreams.Servers {
			serving[srv.Name] = true
		}
	} else {
		pub, err := publishWorkspace(ctx, reg.provider, reg.consumer, log)
		if err != nil {
			return err
		}
		defer pub.stop()
		banner.toolset = fmt.Sprintf("%s (%d tools, the records example), published by a provider in this process", pub.toolset, pub.tools)
		serving[pub.toolset] = true
	}
	if banner.pruned, err = pruneStale(ctx, reg.url, keys.admin, serving, log); err != nil {
		return err
	}
	defer removeEndpoints(dir, os.Getpid())
	return front.serve(ctx, mcp.Registry(reg.consumer), keys.approved(), func(mcpURL string) error {
		err := writeEndpoints(dir, &serveEndpoints{
			PID: os.Getpid(), Registry: reg.url, MCP: mcpURL, Stdio: opts.stdio, Version: version(),
			Started: time.Now().UTC().Truncate(time.Second), ConsumerKeyFile: keys.consumerFile, Approved: opts.approve,
		})
		if err != nil {
			return fmt.Errorf("quiver serve's endpoints file: %w", err)
		}
		banner.mcpURL = mcpURL
		banner.print(front.bannerOut())
		return nil
	})
}

// runAttached serves MCP from the registry of the quiver serve ep
// describes, running on the data folder dir.
func runAttached(ctx context.Context, front mcpFront, dir string, ep *serveEndpoints) error {
	a, err := attach(dir, ep, front.opts.approve)
	if err != nil {
		return err
	}
	if !front.opts.stdio && ep.MCP != "" && sameAddr(ep.MCP, front.opts.addr) {
		return fmt.Errorf("quiver serve is already running at %s (%s, data folder %s): connect your client there, or pass --addr with another port (127.0.0.1:0 picks a free one) to serve it at a second address too", ep.MCP, ep.describe(), dir)
	}
	banner := serveBanner{
		registry: ep.Registry, dir: dir, opts: front.opts, creds: front.creds, attached: ep,
		toolset: "the toolsets of the quiver serve attached to",
	}
	return front.serve(ctx, a.source(front.log), a.approved, func(mcpURL string) error {
		banner.mcpURL = mcpURL
		banner.print(front.bannerOut())
		return nil
	})
}

// storeInUse reports whether err is the embedded store's "locked by
// another process".
func storeInUse(err error) bool {
	return errors.Is(err, boltstore.ErrInUse)
}

// startingTimeout is how long a quiver serve that finds the store locked
// waits for the one holding it to write its endpoints file.
const startingTimeout = 10 * time.Second

// awaitRunningServe waits up to startingTimeout for a quiver serve to run
// on dir, and returns it (nil when none does).
func awaitRunningServe(ctx context.Context, dir string) *serveEndpoints {
	ctx, cancel := context.WithTimeout(ctx, startingTimeout)
	defer cancel()
	for {
		if ep := runningServe(ctx, dir); ep != nil {
			return ep
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// sameAddr reports whether the MCP URL u is served at addr (HOST:PORT).
func sameAddr(u, addr string) bool {
	parsed, err := url.Parse(u)
	return err == nil && parsed.Host == addr
}

// mcpFront is quiver serve's MCP server: its flags and its standard
// streams.
type mcpFront struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	opts           quickServeOptions
	creds          map[string]tools.Exposure
	log            *slog.Logger
}

// bannerOut is where the banner goes: standard error with --stdio, whose
// standard output carries the protocol.
func (f mcpFront) bannerOut() io.Writer {
	if f.opts.stdio {
		return f.stderr
	}
	return f.stdout
}

// serve serves src over MCP (HTTP, or stdio with --stdio) until ctx ends;
// ready is called once clients can connect, with the MCP URL ("" for
// stdio).
func (f mcpFront) serve(ctx context.Context, src mcp.Source, approved []tools.Ident, ready func(mcpURL string) error) error {
	opts := f.opts
	cfg := mcp.Config{
		Name: "quiver", Version: version(), Source: src, Credentials: f.creds, ExposeAll: opts.exposeAll, Logger: f.log,
		Undeclared: tools.Exposure(opts.undeclared), CallTool: opts.callTool,
	}
	opts.sessions.apply(&cfg)
	if len(f.creds) == 0 {
		cfg.Anonymous = tools.ExposureFull
	}
	if opts.stdio {
		cfg.Anonymous = anonymousStdioTier(f.creds)
	}
	cfg.Approved = approved
	limitHandler := newClientLimits(opts.callsPerClient, len(f.creds) > 0, opts.sessions.idle).limit(&cfg)
	ms, err := mcp.New(cfg)
	if err != nil {
		return err
	}
	defer ms.Close()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ms.Ready(rctx); err != nil {
		return fmt.Errorf("read the registry's catalog: %w", err)
	}

	if opts.stdio {
		if err := ready(""); err != nil {
			return err
		}
		return ms.ServeStdio(ctx, f.stdin, f.stdout)
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("listen on %s: the address is in use (is quiver serve running already, on another data folder?): stop it, or pass --addr with another port (127.0.0.1:0 picks a free one)", opts.addr)
		}
		return fmt.Errorf("listen on %s: %w", opts.addr, unwrapOpError(err))
	}
	defer ln.Close()
	if err := ms.CheckAddr(ln.Addr().String()); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", limitHandler(ms.Handler()))
	hs := server.HTTPServer(mux, f.log)
	if err := opts.tls.configure(hs); err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- opts.tls.serve(hs, ln) }()
	if err := ready(opts.tls.scheme() + "://" + ln.Addr().String() + "/mcp"); err != nil {
		_ = hs.Close()
		return err
	}
	select {
	case err := <-served:
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	// The MCP sessions first: a client's open stream would otherwise hold
	// the HTTP shutdown back for its whole timeout.
	_ = ms.Close()
	sdctx, cancelShutdown := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancelShutdown()
	if err := hs.Shutdown(sdctx); err != nil {
		_ = hs.Close()
	}
	fmt.Fprintln(f.bannerOut(), "Stopped.")
	return nil
}

// anonymousStdioTier is the tier of the stdio client: the process that
// started quiver serve owns it, so it gets the full tier unless credentials
// say otherwise — then the lowest tier they grant.
func anonymousStdioTier(creds map[string]tools.Exposure) tools.Exposure {
	if len(creds) == 0 {
		return tools.ExposureFull
	}
	low := tools.ExposureFull
	for _, tier := range creds {
		if low.Covers(tier) { // tier is as low as low, or lower
			low = tier
		}
	}
	return low
}

// embeddedRegistry is a registry node on the embedded store, served on a
// free loopback port with generated keys: the MCP server (a consumer) and
// the provider (a provider) reach it there, each with its own key.
type embeddedRegistry struct {
	url                string
	keys               *registryKeys
	provider, consumer *registry.Client
	node               *node.Node
}

func startEmbeddedRegistry(ctx context.Context, dir string, keys *registryKeys, log *slog.Logger) (*embeddedRegistry, error) {
	n, err := node.Start(ctx, node.Config{
		Store:           stores.Config{Kind: stores.Embedded, Dir: dir},
		Server:          server.Config{Keys: keys.keys, Logger: log},
		ShutdownTimeout: shutdownTimeout,
	})
	if err != nil {
		return nil, err
	}
	r := &embeddedRegistry{url: n.URL, keys: keys, node: n}
	if r.provider, err = registry.NewClient(r.url, registry.WithAPIKey(keys.provider)); err == nil {
		r.consumer, err = registry.NewClient(r.url, registry.WithAPIKey(keys.consumer))
	}
	if err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// close stops the registry: waiting calls answered, streams ended, store
// closed.
func (r *embeddedRegistry) close() { _ = r.node.Close() }
