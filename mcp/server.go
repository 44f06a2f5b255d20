package mcp

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/httpguard"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// SearchToolName is the name of the search tool a session lists.
const SearchToolName = "search_tools"

// DefaultSearchBudget is how many searches a session may make between two
// calls to other tools.
const DefaultSearchBudget = 3

// DefaultMaxRequestBytes bounds one HTTP request's body.
const DefaultMaxRequestBytes = 4 << 20

// Config configures a Server.
type Config struct {
	// Name and Version identify the server to clients ("quiver" when
	// empty).
	Name, Version string
	// Source is what the server serves; required.
	Source Source
	// Credentials maps bearer credentials to the tier their clients get.
	Credentials map[string]tools.Exposure
	// Anonymous is the tier of a client that sends no credential, "" to
	// refuse it (401). Stdio clients get this tier.
	Anonymous tools.Exposure
	// Undeclared is the tier a tool without a declared exposure needs; ""
	// serves such tools to no one.
	Undeclared tools.Exposure
	// Approved names the confirmation-gated tools served anyway: MCP has
	// no way to ask a human, so the server's operator approves them here.
	Approved []tools.Ident
	// ExposeAll lists every tool in the client's scope at once, for
	// clients that cannot search; the search tool is not listed then.
	ExposeAll bool
	// SearchBudget is how many searches a session may make between two
	// calls to other tools: 0 means DefaultSearchBudget, a negative value
	// no limit.
	SearchBudget int
	// Labels are the run labels tools' injected fields read; a tool whose
	// required labels are not all here is not served.
	Labels map[string]string
	// MaxRequestBytes bounds an HTTP request's body (DefaultMaxRequestBytes
	// when 0).
	MaxRequestBytes int64
	// SessionTimeout closes HTTP sessions idle that long (0: never).
	SessionTimeout time.Duration
	// Resources are the documents clients may read; Prompts the static
	// prompts they may get (a design's Resource methods and StaticPrompts:
	// the generated MCP package of the service returns both).
	Resources []Resource
	Prompts   []Prompt
	// ProtocolVersion, when set, is the only MCP protocol revision the
	// server accepts (a design's ProtocolVersion); otherwise every one the
	// SDK supports.
	ProtocolVersion string
	// Logger receives the server's warnings (tools left out, catalog
	// errors); discarded when nil.
	Logger *slog.Logger
}

// Server serves a Source over MCP.
type Server struct {
	cfg    Config
	creds  []credential
	engine *discovery.Engine
	log    *slog.Logger

	mu       sync.Mutex
	current  *served
	sessions map[*session]bool
	ready    chan struct{}
	readyErr error

	stop   context.CancelFunc
	closed chan struct{}
}

// served is one version of the catalog: the tools and their step-free
// catalog (wire names, definitions).
type served struct {
	tools   map[tools.Ident]Tool
	catalog *catalog.Catalog
	// defs are the catalog's definitions, rendered once per version.
	defs []model.ToolDefinition
}

// New checks cfg and starts following its source's catalog.
func New(cfg Config) (*Server, error) {
	var errs []error
	if cfg.Source == nil {
		errs = append(errs, errors.New("Config.Source is nil"))
	}
	for _, e := range []tools.Exposure{cfg.Anonymous, cfg.Undeclared} {
		if e != "" {
			if err := checkTier(e); err != nil {
				errs = append(errs, err)
			}
		}
	}
	s := &Server{cfg: cfg, sessions: map[*session]bool{}, ready: make(chan struct{}), closed: make(chan struct{})}
	for token, tier := range cfg.Credentials {
		if token == "" {
			errs = append(errs, errors.New("a credential is empty"))
		}
		if err := checkTier(tier); err != nil {
			errs = append(errs, fmt.Errorf("credential tier: %w", err))
		}
		s.creds = append(s.creds, credential{digest: sha256.Sum256([]byte(token)), tier: tier})
	}
	if err := checkExtras(cfg.Resources, cfg.Prompts); err != nil {
		errs = append(errs, err)
	}
	engine, err := discovery.New()
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	s.engine = engine
	if s.cfg.Name == "" {
		s.cfg.Name = "quiver"
	}
	if s.cfg.MaxRequestBytes == 0 {
		s.cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	go s.follow(ctx)
	return s, nil
}

// Close stops following the catalog and closes the sessions.
func (s *Server) Close() error {
	s.stop()
	<-s.closed
	return nil
}

// Ready waits until the server has read its source's catalog once, and
// returns the error of that read.
func (s *Server) Ready(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.readyErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CheckAddr refuses to serve HTTP on a non-loopback address without
// credentials: anyone who can reach it would be a client.
func (s *Server) CheckAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcp: address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if !loopback && len(s.creds) == 0 {
		return fmt.Errorf("mcp: serving on %s, which is not a loopback address, needs credentials: configure Config.Credentials (quiver serve --keys)", addr)
	}
	if !loopback && s.cfg.Anonymous != "" {
		return fmt.Errorf("mcp: serving on %s, which is not a loopback address, refuses anonymous clients: leave Config.Anonymous empty", addr)
	}
	return nil
}

// follow keeps the served catalog current.
func (s *Server) follow(ctx context.Context) {
	defer close(s.closed)
	first := true
	for {
		list, changed, err := s.cfg.Source.Tools(ctx)
		if ctx.Err() != nil {
			break
		}
		if err == nil {
			var cur *served
			cur, err = s.build(list)
			if err == nil {
				s.mu.Lock()
				s.current = cur
				sessions := slices.Collect(maps.Keys(s.sessions))
				s.mu.Unlock()
				for _, ss := range sessions {
					ss.refresh()
				}
			}
		}
		if err != nil {
			s.log.Warn("mcp: reading the catalog", "err", err)
		}
		if first {
			s.readyErr, first = err, false
			close(s.ready)
		}
		if err != nil {
			changed = after(ctx, time.Second) // retry a failed read
		}
		if changed == nil {
			<-ctx.Done()
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
		}
	}
	if first {
		s.readyErr = ctx.Err()
		close(s.ready)
	}
	s.mu.Lock()
	sessions := slices.Collect(maps.Keys(s.sessions))
	s.mu.Unlock()
	for _, ss := range sessions {
		ss.close()
	}
}

// build turns a source's tools into a served catalog, leaving out the
// tools no client may get (missing labels, a name the search tool takes).
func (s *Server) build(list []Tool) (*served, error) {
	cur := &served{tools: make(map[tools.Ident]Tool, len(list))}
	entries := make([]catalog.Entry, 0, len(list))
	for _, t := range list {
		if missing := missingLabels(t.Spec.RequiredLabels, s.cfg.Labels); len(missing) > 0 {
			s.log.Warn("mcp: tool left out: its labels are not configured", "tool", t.Spec.Name, "labels", missing)
			continue
		}
		if t.Executor == nil {
			s.log.Warn("mcp: tool left out: it has nothing to run it", "tool", t.Spec.Name)
			continue
		}
		cur.tools[t.Spec.Name] = t
		entries = append(entries, catalog.Entry{Spec: t.Spec, Deferred: t.Deferred && !s.cfg.ExposeAll})
	}
	cat, err := catalog.New(entries, catalog.Filter{}, s.cfg.Labels)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	if _, clash := cat.Ident(SearchToolName); clash {
		return nil, fmt.Errorf("mcp: a tool is called %q on the wire, the search tool's name: rename it", SearchToolName)
	}
	cur.catalog = cat
	cur.defs = cat.AdvertisedToolDefinitions()
	return cur, nil
}

// snapshot returns the served catalog (nil before the first read).
func (s *Server) snapshot() *served {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

func missingLabels(required []string, labels map[string]string) []string {
	var out []string
	for _, l := range required {
		if _, ok := labels[l]; !ok {
			out = append(out, l)
		}
	}
	return out
}

// after returns a channel closed after d, or when ctx ends.
func after(ctx context.Context, d time.Duration) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}()
	return ch
}

// Handler serves MCP over streamable HTTP: the SDK's handler, its
// localhost protection on (a request with a non-local Host is refused),
// behind the cross-origin checks (403 for a request a browser sent from
// another origin, 415 for a body not declared application/json), the
// credential check (401 without a valid one) and the body limit.
func (s *Server) Handler() http.Handler {
	// The SDK asks for a server on every request: first to read the
	// protocol versions it accepts, then, for a request starting a session,
	// for the session's own server. Only that second ask creates a session;
	// the first, and every request of an existing session, get a server
	// with the same options and nothing else.
	versions := sdk.NewServer(&sdk.Implementation{Name: s.cfg.Name, Version: s.cfg.Version}, s.serverOptions(nil))
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		asks, _ := r.Context().Value(asksKey{}).(*int)
		if r.Header.Get("Mcp-Session-Id") != "" || asks == nil || *asks == 0 {
			if asks != nil {
				*asks++
			}
			return versions
		}
		tier, _ := r.Context().Value(tierKey{}).(tools.Exposure)
		return s.newSession(tier).server
	}, &sdk.StreamableHTTPOptions{Logger: s.log, SessionTimeout: s.cfg.SessionTimeout})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A web page in the user's browser may not drive the endpoint:
		// the SDK refuses a foreign Host on loopback; a foreign Origin and
		// a body a page can send without asking are refused here, before
		// anything is read.
		if err := httpguard.CheckOrigin(r); err != nil {
			http.Error(w, "mcp: "+err.Error(), http.StatusForbidden)
			return
		}
		if err := httpguard.CheckJSONBody(r); err != nil {
			http.Error(w, "mcp: "+err.Error(), http.StatusUnsupportedMediaType)
			return
		}
		tier, ok := s.tierOf(r.Header)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="quiver"`)
			http.Error(w, "mcp: a valid bearer credential is required (Authorization: Bearer <credential>)", http.StatusUnauthorized)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxRequestBytes)
		ctx := context.WithValue(context.WithValue(r.Context(), tierKey{}, tier), asksKey{}, new(int))
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

type tierKey struct{}

// asksKey counts the SDK's asks for a server during one request.
type asksKey struct{}

// ServeStdio serves one client over in and out (its standard streams)
// until ctx ends or the client closes in. The client gets the anonymous
// tier.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.ServeTransport(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
}

// ServeTransport serves one client over an SDK transport (stdio, an
// in-memory pair in tests) until ctx ends or the client leaves. The client
// gets the anonymous tier.
func (s *Server) ServeTransport(ctx context.Context, t sdk.Transport) error {
	if s.cfg.Anonymous == "" {
		return errors.New("mcp: a client without a credential needs a tier: set Config.Anonymous")
	}
	ss := s.newSession(s.cfg.Anonymous)
	defer ss.close()
	err := ss.server.Run(ctx, t)
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Sessions returns how many client sessions the server holds: connected
// ones, and for up to a minute those that never finished their handshake.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
