package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"time"
)

// The defaults of [Config]'s limits.
const (
	DefaultInitializeTimeout = 10 * time.Second
	DefaultCallTimeout       = 60 * time.Second
	DefaultListTimeout       = 30 * time.Second
	DefaultMaxResultBytes    = 4 << 20
	DefaultMinBackoff        = 100 * time.Millisecond
	DefaultMaxBackoff        = 10 * time.Second
)

// Config says how to reach one upstream MCP server: over stdio (Command)
// or streamable HTTP (URL), one of the two.
type Config struct {
	// Command, Args, Env (KEY=VALUE, added to a minimal environment:
	// PATH, HOME, TMPDIR, LANG and, on Windows, SYSTEMROOT, as this
	// process has them) and Dir start the server as a subprocess speaking
	// MCP on stdio. The process gets no other variable of this process:
	// secrets in the environment stay here unless Env passes them on. On
	// Unix it runs in a process group of its own, so that a terminal's
	// Ctrl-C stops this process, which then stops the server in order
	// ([Client.Close]), rather than the server dying under its calls.
	Command string
	Args    []string
	Env     []string
	Dir     string
	// Stderr receives the server process's standard error (discarded
	// when nil), from every process the client starts.
	Stderr io.Writer
	// URL is the server's streamable HTTP endpoint; Header is sent with
	// every request, BearerToken as "Authorization: Bearer …", through
	// HTTPClient. When HTTPClient is nil the client is bounded: 10s to
	// dial, 10s for TLS, idle connections closed after 90s; each request is
	// bounded by its call's deadline (a client-wide timeout would cut the
	// server's event stream).
	URL         string
	Header      http.Header
	BearerToken string
	HTTPClient  *http.Client

	// InitializeTimeout bounds connecting and the initialize handshake
	// (default 10s); CallTimeout bounds a call whose context carries no
	// deadline (default 60s); ListTimeout bounds listing the tools
	// (default 30s).
	InitializeTimeout time.Duration
	CallTimeout       time.Duration
	ListTimeout       time.Duration
	// MaxResultBytes bounds one call's result JSON (default 4 MiB): a
	// bigger one is a failure the model reads, never passed on.
	MaxResultBytes int
	// MinBackoff and MaxBackoff bound the waits between reconnection
	// attempts after the server died (defaults 100ms and 10s): the wait
	// doubles from MinBackoff with each failed attempt, up to MaxBackoff,
	// and starts again at MinBackoff once a connection succeeds.
	MinBackoff, MaxBackoff time.Duration

	// Handlers answers the requests a server sends back: sampling,
	// elicitation, roots. Each nil handler refuses its request with an
	// error saying the application installed none, and the client does not
	// advertise the capability.
	Handlers Handlers
	// OnToolsChanged is called (in its own goroutine) after the server
	// sent notifications/tools/list_changed. Toolsets built before are not
	// rebuilt: build them again (ListedToolset, DeclaredToolset) to follow.
	OnToolsChanged func()
	// OnDisconnect is called (in its own goroutine) when a connection to
	// the server ended other than by [Client.Close] — a stdio server that
	// exited, an HTTP session the server ended — with the reason the SDK
	// gave (nil when it gave none). The next call, or [Client.Tools],
	// reconnects.
	OnDisconnect func(err error)
}

// Handlers answer what an upstream server may ask its client. Each gets
// and returns the JSON of the request's params and result as the MCP
// specification spells them.
type Handlers struct {
	// Sampling answers sampling/createMessage with the model's reply (a
	// CreateMessageResult).
	Sampling func(ctx context.Context, request json.RawMessage) (json.RawMessage, error)
	// Elicitation answers elicitation/create with the user's answer (an
	// ElicitResult).
	Elicitation func(ctx context.Context, request json.RawMessage) (json.RawMessage, error)
	// Roots lists the roots the server may work in (file:// URIs).
	Roots func(ctx context.Context) ([]string, error)
}

// withDefaults returns cfg checked, with its zero limits set to the
// defaults.
func (cfg Config) withDefaults() (Config, error) {
	switch {
	case cfg.Command == "" && cfg.URL == "":
		return cfg, errors.New("neither Command (stdio) nor URL (streamable HTTP) is set: set one")
	case cfg.Command != "" && cfg.URL != "":
		return cfg, errors.New("both Command (stdio) and URL (streamable HTTP) are set: set one")
	case cfg.Command != "" && (len(cfg.Header) > 0 || cfg.BearerToken != "" || cfg.HTTPClient != nil):
		return cfg, errors.New("the fields Header, BearerToken and HTTPClient are for a URL, not a Command")
	case cfg.URL != "" && (len(cfg.Args) > 0 || len(cfg.Env) > 0 || cfg.Dir != "" || cfg.Stderr != nil):
		return cfg, errors.New("the fields Args, Env, Dir and Stderr are for a Command, not a URL")
	}
	setDefault(&cfg.InitializeTimeout, DefaultInitializeTimeout)
	setDefault(&cfg.CallTimeout, DefaultCallTimeout)
	setDefault(&cfg.ListTimeout, DefaultListTimeout)
	setDefault(&cfg.MaxResultBytes, DefaultMaxResultBytes)
	setDefault(&cfg.MinBackoff, DefaultMinBackoff)
	setDefault(&cfg.MaxBackoff, DefaultMaxBackoff)
	if cfg.MaxBackoff < cfg.MinBackoff {
		return cfg, errors.New("MaxBackoff is below MinBackoff")
	}
	return cfg, nil
}

func setDefault[T time.Duration | int](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// minimalEnv is the environment a stdio server starts with, before
// Config.Env.
func minimalEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG", "SYSTEMROOT"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
