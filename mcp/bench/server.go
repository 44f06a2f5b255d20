package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/internal/workspacedemo"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// shutdownTimeout bounds each step of the shutdown.
const shutdownTimeout = 10 * time.Second

// served is the MCP server on its loopback listener, and a second MCP
// server over the same executor for clients on the SDK's in-memory
// transport.
type served struct {
	url   string
	key   string
	specs map[tools.Ident]tools.ToolSpec
	exec  *workspacedemo.Workspace
	mcp   *mcp.Server
	http  *http.Server
	done  chan struct{}
	log   *slog.Logger

	// mem serves in-memory clients with the full tier (Config.Anonymous:
	// they carry no credential); memCtx ends their ServeTransport calls,
	// memRuns waits for them.
	mem       *mcp.Server
	memCtx    context.Context
	memCancel context.CancelFunc
	memRuns   sync.WaitGroup
}

// serve starts an MCP server over the workspace toolset, all its tools
// found by search as on a registry's catalog, with one full-tier
// credential, and serves it on a free loopback port; and the in-memory
// transport's server.
func serve(ctx context.Context, log *slog.Logger) (*served, error) {
	decl, err := catalogs.WorkspaceToolset()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		return nil, fmt.Errorf("bench: the workspace toolset: %w", err)
	}
	s := &served{specs: map[tools.Ident]tools.ToolSpec{}, exec: workspacedemo.New(), done: make(chan struct{}), log: log}
	for _, spec := range specs {
		s.specs[spec.Name] = spec
	}
	if s.key, err = randomKey(); err != nil {
		return nil, err
	}
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: decl.Name, Specs: specs, Executor: s.exec}}, nil)
	if err != nil {
		return nil, err
	}
	if s.mcp, err = mcp.New(mcp.Config{
		Name: "quiver-bench", Source: src,
		Credentials: map[string]tools.Exposure{s.key: tools.ExposureFull},
		Logger:      log,
	}); err != nil {
		return nil, err
	}
	if s.mem, err = mcp.New(mcp.Config{Name: "quiver-bench", Source: src, Anonymous: tools.ExposureFull, Logger: log}); err != nil {
		_ = s.mcp.Close()
		return nil, err
	}
	closeBoth := func() {
		_ = s.mcp.Close()
		_ = s.mem.Close()
	}
	rctx, cancel := context.WithTimeout(ctx, shutdownTimeout)
	defer cancel()
	for _, m := range []*mcp.Server{s.mcp, s.mem} {
		if err := m.Ready(rctx); err != nil {
			closeBoth()
			return nil, fmt.Errorf("bench: the MCP server's catalog: %w", err)
		}
	}
	ln, err := loopback.Listen()
	if err != nil {
		closeBoth()
		return nil, fmt.Errorf("bench: listen: %w", err)
	}
	s.memCtx, s.memCancel = context.WithCancel(context.WithoutCancel(ctx))
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.mcp.Handler())
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	s.url = "http://" + ln.Addr().String() + "/mcp"
	return s, nil
}

// connectMemory opens a client session on the in-memory transport, served
// by s.mem until the client closes it or stop.
func (s *served) connectMemory(ctx context.Context, protocol string) (*sdk.ClientSession, error) {
	st, ct := sdk.NewInMemoryTransports()
	s.memRuns.Go(func() {
		if err := s.mem.ServeTransport(s.memCtx, st); err != nil {
			s.log.Warn("bench: an in-memory session ended", "err", err)
		}
	})
	return newClient().Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
}

// stop shuts the HTTP server down, waiting for its connections to end,
// ends the in-memory sessions, then closes the MCP servers. It fails when
// connections were still open after shutdownTimeout: a session that did
// not end.
func (s *served) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		_ = s.http.Close()
		err = fmt.Errorf("bench: the HTTP server did not shut down within %s: %w", shutdownTimeout, err)
	}
	<-s.done
	s.memCancel()
	s.memRuns.Wait()
	_ = s.mcp.Close()
	_ = s.mem.Close()
	return err
}

// randomKey returns a fresh bearer credential.
func randomKey() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	return "bench-" + hex.EncodeToString(b), nil
}
