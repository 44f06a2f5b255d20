package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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

// CallToolName is the name of the tool a session calls found tools
// through in call-tool mode ([Config.CallTool]).
const CallToolName = model.CallToolName

// DefaultSearchBudget is how many searches a session may make between two
// calls to other tools.
const DefaultSearchBudget = 3

// DefaultMaxRequestBytes bounds one HTTP request's body.
const DefaultMaxRequestBytes = 4 << 20

// DefaultSessionTimeout is how long an HTTP session may stay idle before
// it is dropped: long enough for an agent thinking between two requests,
// short enough that sessions clients leave without closing (every MCP
// Inspector --cli run leaves one) do not pile up.
const DefaultSessionTimeout = 5 * time.Minute

// DefaultMaxSessions bounds the sessions a server holds (about 31 KB each,
// and a catalog change touches every one).
const DefaultMaxSessions = 1024

// DefaultMaxSessionsPerCredential bounds the sessions one credential holds.
const DefaultMaxSessionsPerCredential = 256

// DefaultBodyTimeout bounds how long an HTTP request's body may take to
// arrive (the registry's default).
const DefaultBodyTimeout = 30 * time.Second

// DefaultMaxReadingBodies bounds how many HTTP request bodies are read at
// once (the registry's default).
const DefaultMaxReadingBodies = 64

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
	// CallTool keeps a session's tool list stable, for clients that read
	// tools/list once and never again, and for the prompt caches every
	// change of it invalidates: a session lists the inline tools in its
	// scope, SearchToolName and CallToolName — the last two always — and
	// a search adds nothing to it and sends no list_changed. The search
	// answers with the found tools' inputSchema; the client calls them
	// through CallToolName ({"name": "<wire name>", "arguments": {…}}),
	// which checks, admits and runs the call exactly as a direct tools/call
	// of that tool (a tool no search found yet is refused the same way).
	// Deferred tools (every registry tool is one) are never listed; only a
	// catalog change that changes the inline tools in scope changes the
	// list. A tool whose wire name is CallToolName clashes then. Not with
	// ExposeAll, which lists everything: pick one.
	CallTool bool
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
	// SessionTimeout drops an HTTP session that received no request for
	// that long, freeing what it holds; its client gets 404 and starts a
	// new one, as the protocol says. 0 means DefaultSessionTimeout, a
	// negative value never. Stdio and ServeTransport sessions last as long
	// as their transport.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions the server holds at once, HTTP and
	// transport alike: a client starting one more is refused (503) while
	// the others keep working. 0 means DefaultMaxSessions, a negative value
	// no bound.
	MaxSessions int
	// MaxSessionsPerCredential bounds the sessions one bearer credential
	// holds at once (clients without one count as one credential): one
	// more is refused (429). 0 means DefaultMaxSessionsPerCredential, a
	// negative value no bound.
	MaxSessionsPerCredential int
	// BodyTimeout bounds how long an HTTP request's body may take to
	// arrive, from its headers on (408 after it), as the registry's front
	// door does. 0 means DefaultBodyTimeout, a negative value no bound.
	BodyTimeout time.Duration
	// MaxReadingBodies bounds how many HTTP request bodies are read at
	// once; a request arriving when as many are being read is answered 429
	// with Retry-After. 0 means DefaultMaxReadingBodies, a negative value
	// no bound.
	MaxReadingBodies int
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
	// sdkLog is the logger the SDK's servers get; undelivered counts the
	// notifications it could not deliver, logged as one line per burst.
	sdkLog      *slog.Logger
	undelivered *undelivered
	// reading bounds the HTTP request bodies read at once.
	reading *httpguard.BodySlots
	// listingBuilds counts the listings built, one per (tier, version);
	// changes the catalog versions applied to every session.
	listingBuilds atomic.Int64
	changes       atomic.Int64

	mu       sync.Mutex
	current  *served
	sessions map[*session]bool
	// held counts the sessions holding a slot, in all and per credential.
	held       int
	heldByCred map[credKey]int
	ready      chan struct{}
	readyErr   error
	// undeclaredWarned are the undeclared tools last warned of
	// (warnUndeclared).
	undeclaredWarned string

	stop   context.CancelFunc
	closed chan struct{}
}

// served is one version of the catalog: the tools and their step-free
// catalog (wire names, definitions).
type served struct {
	tools   map[tools.Ident]Tool
	catalog *catalog.Catalog
	// defs are the catalog's definitions, rendered once per version, and
	// listed their MCP definitions by wire name.
	defs   []model.ToolDefinition
	listed map[string]listedTool

	mu sync.Mutex
	// listings are the tiers' listings, built on first use.
	listings map[tools.Exposure]*listing
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
	s := &Server{cfg: cfg, sessions: map[*session]bool{}, heldByCred: map[credKey]int{}, ready: make(chan struct{}), closed: make(chan struct{})}
	for token, tier := range cfg.Credentials {
		if token == "" {
			errs = append(errs, errors.New("a credential is empty (read from an unset environment variable?): give every client a non-empty key"))
		}
		if err := checkTier(tier); err != nil {
			errs = append(errs, fmt.Errorf("credential tier: %w", err))
		}
		s.creds = append(s.creds, credential{digest: sha256.Sum256([]byte(token)), tier: tier})
	}
	if err := checkExtras(cfg.Resources, cfg.Prompts); err != nil {
		errs = append(errs, err)
	}
	if cfg.CallTool && cfg.ExposeAll {
		errs = append(errs, errors.New("Config.CallTool and Config.ExposeAll are both set: pick one (ExposeAll lists every tool in scope; CallTool keeps a short, stable list and calls found tools through "+CallToolName+")"))
	}
	engine, err := discovery.New(discovery.Settings{})
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
	if s.cfg.MaxRequestBytes <= 0 {
		s.cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	setDefault(&s.cfg.SessionTimeout, DefaultSessionTimeout)
	setDefault(&s.cfg.MaxSessions, DefaultMaxSessions)
	setDefault(&s.cfg.MaxSessionsPerCredential, DefaultMaxSessionsPerCredential)
	setDefault(&s.cfg.BodyTimeout, DefaultBodyTimeout)
	setDefault(&s.cfg.MaxReadingBodies, DefaultMaxReadingBodies)
	s.reading = httpguard.NewBodySlots(s.cfg.MaxReadingBodies)
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.undelivered = newUndelivered(ctx, s.log)
	s.sdkLog = sdkLogger(s.log, s.undelivered)
	go s.follow(ctx)
	return s, nil
}

// setDefault sets *v to def when it is zero.
func setDefault[T int | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
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
				s.changes.Add(1)
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
// tools no client may get (missing labels, nothing to run them); a tool
// taking the search tool's name, or the call tool's in call-tool mode,
// fails it.
func (s *Server) build(list []Tool) (*served, error) {
	s.warnUndeclared(list)
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
	if _, clash := cat.Ident(CallToolName); clash && s.cfg.CallTool {
		return nil, fmt.Errorf("mcp: a tool is called %q on the wire, the name of the tool found tools are called through (Config.CallTool): rename it", CallToolName)
	}
	cur.catalog = cat
	cur.defs = cat.AdvertisedToolDefinitions()
	cur.listed = make(map[string]listedTool, len(cur.defs))
	for _, d := range cur.defs {
		cur.listed[d.Name] = newListedTool(sdkTool(d, cur.tools[d.Ident].Spec))
	}
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
// credential check (401 without a valid one), the session caps (503 when
// the server holds MaxSessions, 429 when the credential holds
// MaxSessionsPerCredential) and the body's bounds: read whole within
// BodyTimeout (408), while fewer than MaxReadingBodies others are read
// (429, Retry-After), under MaxRequestBytes (413).
func (s *Server) Handler() http.Handler {
	// The SDK asks for a server on every request: first to read the
	// protocol versions it accepts, then, for a request starting a session,
	// for the session's own server. Only that second ask, for an initialize
	// request admitted by the caps, creates a session; the first, and every request
	// of an existing session, get a server with the same options and
	// nothing else.
	versions := sdk.NewServer(&sdk.Implementation{Name: s.cfg.Name, Version: s.cfg.Version}, s.serverOptions())
	timeout := s.cfg.SessionTimeout
	if timeout < 0 {
		timeout = 0 // the SDK's "never"
	}
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		adm, _ := r.Context().Value(admissionKey{}).(*admission)
		if r.Header.Get("Mcp-Session-Id") != "" || adm == nil || adm.session != nil || adm.asks == 0 {
			if adm != nil {
				adm.asks++
			}
			return versions
		}
		// Checked again, holding the slot: a client may start sessions
		// faster than the check above saw them. The rare loser gets the
		// SDK's 400.
		if _, err := s.admit(adm.cred, true); err != nil {
			s.log.Warn("mcp: session refused", "err", err)
			return nil
		}
		adm.session = s.newSession(adm.tier, adm.cred)
		return adm.session.server
	}, &sdk.StreamableHTTPOptions{Logger: s.log, SessionTimeout: timeout, MaxRequestBodyBytes: s.cfg.MaxRequestBytes})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A body gets a read deadline before anything else, so that a
		// request refused below — whose body net/http drains — cannot hold
		// its connection by sending slowly. It is cleared once the body is
		// read: the SSE streams last longer.
		rc := http.NewResponseController(w)
		if httpguard.HasBody(r) && s.cfg.BodyTimeout > 0 {
			_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
		}
		// A web page in the user's browser may not drive the endpoint:
		// the SDK refuses a foreign Host on loopback; a foreign Origin and
		// a body a page can send without asking are refused here, before
		// anything is read.
		if err := httpguard.CheckOrigin(r); err != nil {
			refuse(w, r, http.StatusForbidden, err.Error())
			return
		}
		if err := httpguard.CheckJSONBody(r); err != nil {
			refuse(w, r, http.StatusUnsupportedMediaType, err.Error())
			return
		}
		tier, cred, ok := s.credentialOf(r.Header)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="quiver"`)
			refuse(w, r, http.StatusUnauthorized, "a valid bearer credential is required (Authorization: Bearer <credential>)")
			return
		}
		var body []byte
		if httpguard.HasBody(r) {
			var status int
			var err error
			body, status, err = s.readBody(w, r)
			if err != nil {
				if status == http.StatusTooManyRequests {
					w.Header().Set("Retry-After", "1")
				}
				refuse(w, r, status, err.Error())
				return
			}
			_ = rc.SetReadDeadline(time.Time{})
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		var adm *admission
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && isInitialize(body) {
			// This request starts a session: it is refused if one more
			// would be over a cap. (Other requests without a session id,
			// such as a client's server/discover probe, get a server that
			// starts none.)
			if status, err := s.admit(cred, false); err != nil {
				w.Header().Set("Retry-After", "1")
				refuseRPC(w, status, err.Error())
				return
			}
			adm = &admission{tier: tier, cred: cred}
			defer func() {
				if adm.session != nil {
					adm.session.watch()
				}
			}()
		}
		ctx := r.Context()
		if adm != nil {
			ctx = context.WithValue(ctx, admissionKey{}, adm)
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// isInitialize reports whether body is a JSON-RPC initialize request.
func isInitialize(body []byte) bool {
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "initialize"
}

// readBody reads a request's body whole, under MaxRequestBytes, while a
// slot of MaxReadingBodies is free.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, error) {
	limit := s.cfg.MaxRequestBytes
	body, problem, err := s.reading.ReadBody(w, r, limit)
	switch problem {
	case 0:
		return body, 0, nil
	case httpguard.BodyTooLarge:
		return nil, problem.Status(), fmt.Errorf("the request body exceeds %d bytes, the endpoint's limit (Config.MaxRequestBytes): send a smaller one", limit)
	case httpguard.BodyBusy:
		return nil, problem.Status(), fmt.Errorf("the server is reading %d request bodies already, its bound (Config.MaxReadingBodies, quiver serve --max-reading-bodies): retry in a second", s.reading.Cap())
	case httpguard.BodySlow:
		return nil, problem.Status(), fmt.Errorf("the request body did not arrive within %s (Config.BodyTimeout, quiver serve --body-timeout): send it at once", s.cfg.BodyTimeout)
	}
	return nil, problem.Status(), fmt.Errorf("reading the request body: %w", err)
}

// refuse answers a request the endpoint stops. A refused request whose
// body is still unread closes its connection: net/http then drains at most
// 256 KiB of it, under the body deadline.
func refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if httpguard.HasBody(r) {
		w.Header().Set("Connection", "close")
	}
	http.Error(w, "mcp: "+strings.TrimPrefix(msg, "httpguard: "), status)
}

// refuseRPC answers a request the endpoint stops with a JSON-RPC error
// (id null) that clients show, with the HTTP status.
func refuseRPC(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32000, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// admission is a request admitted to start a session: the session the
// SDK asks for takes a slot then.
type admission struct {
	tier    tools.Exposure
	cred    credKey
	asks    int
	session *session
}

// admissionKey is the context key of a request's *admission.
type admissionKey struct{}

// ErrSessionCap is the error of a session refused by a cap: ServeTransport
// returns it wrapped, and the HTTP endpoint answers its message.
var ErrSessionCap = errors.New("mcp: session cap reached")

// admit checks that a client holding cred may start one more session,
// and reserves its slot when hold is set; otherwise it says which cap
// refuses it (the status to answer and an error naming the setting).
func (s *Server) admit(cred credKey, hold bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if max := s.cfg.MaxSessions; max > 0 && s.held >= max {
		return http.StatusServiceUnavailable, fmt.Errorf("%w: the server holds %d sessions, its cap (Config.MaxSessions, quiver serve --max-sessions): close sessions you no longer use (DELETE with their Mcp-Session-Id), wait for idle ones to be dropped after %s, or raise the cap", ErrSessionCap, s.held, s.idleText())
	}
	if max := s.cfg.MaxSessionsPerCredential; max > 0 && s.heldByCred[cred] >= max {
		return http.StatusTooManyRequests, fmt.Errorf("%w: %s holds %d sessions, the cap per credential (Config.MaxSessionsPerCredential, quiver serve --max-sessions-per-key): close sessions you no longer use (DELETE with their Mcp-Session-Id), wait for idle ones to be dropped after %s, or raise the cap", ErrSessionCap, cred, s.heldByCred[cred], s.idleText())
	}
	if hold {
		s.held++
		s.heldByCred[cred]++
	}
	return 0, nil
}

// idleText says when idle sessions are dropped.
func (s *Server) idleText() string {
	if s.cfg.SessionTimeout < 0 {
		return "never (Config.SessionTimeout is negative)"
	}
	return s.cfg.SessionTimeout.String() + " (Config.SessionTimeout, quiver serve --session-timeout)"
}

// release frees a slot admit held.
func (s *Server) release(cred credKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held--
	if s.heldByCred[cred]--; s.heldByCred[cred] <= 0 {
		delete(s.heldByCred, cred)
	}
}

// drop forgets a session whose client left and frees its slot (once).
func (s *Server) drop(ss *session) {
	ss.close()
	s.mu.Lock()
	held := s.sessions[ss]
	delete(s.sessions, ss)
	s.mu.Unlock()
	if held {
		s.release(ss.cred)
	}
}

// ServeStdio serves one client over in and out (its standard streams)
// until ctx ends or the client closes in. The client gets the anonymous
// tier.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.ServeTransport(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
}

// ServeTransport serves one client over an SDK transport (stdio, an
// in-memory pair in tests) until ctx ends or the client leaves. The client
// gets the anonymous tier, and its session counts against the caps.
func (s *Server) ServeTransport(ctx context.Context, t sdk.Transport) error {
	if s.cfg.Anonymous == "" {
		return errors.New("mcp: a client without a credential needs a tier: set Config.Anonymous")
	}
	if _, err := s.admit(anonymousCred, true); err != nil {
		return err
	}
	ss := s.newSession(s.cfg.Anonymous, anonymousCred)
	defer s.drop(ss)
	err := ss.server.Run(ctx, t)
	if clientLeft(err) || ctx.Err() != nil {
		return nil
	}
	return err
}

// clientLeft reports whether a transport's error only says the client
// went away: its input ended, or it closed the end the server writes to
// (a pipe closed, a process exited) — which a write may learn before a
// read does.
func clientLeft(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Sessions returns how many client sessions the server holds: from the
// request starting one until its client deletes it, its transport ends,
// or it stays idle SessionTimeout.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
