package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"sync"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// attachment is a quiver serve started while another runs on the same
// data folder: it serves MCP from the running one's registry, with the
// consumer key that one wrote, and neither opens the store nor publishes
// the workspace again.
type attachment struct {
	to       *serveEndpoints
	client   *registry.Client
	keyFile  string
	approved []tools.Ident
}

// attach connects to the quiver serve ep describes, reading its consumer
// key from the data folder dir.
func attach(dir string, ep *serveEndpoints, approve []string) (*attachment, error) {
	keyFile := ep.ConsumerKeyFile
	if keyFile == "" {
		keyFile = filepath.Join(dir, consumerKeyFile)
	}
	if len(approve) > 0 && !sameSet(approve, ep.Approved) {
		return nil, fmt.Errorf("--approve %v: quiver serve (%s) already runs on this data folder with --approve %v, and this one serves its registry with its grant: stop it and start it again with the --approve you want, or leave --approve out", approve, ep.describe(), ep.Approved)
	}
	key, err := readSecretFile("the consumer key file of quiver serve", keyFile)
	if err != nil {
		return nil, err
	}
	c, err := registry.NewClient(ep.Registry, registry.WithAPIKey(key))
	if err != nil {
		return nil, fmt.Errorf("quiver serve's endpoints file: %w", err)
	}
	a := &attachment{to: ep, client: c, keyFile: keyFile}
	for _, name := range ep.Approved {
		a.approved = append(a.approved, tools.Ident(name))
	}
	return a, nil
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	set := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	return maps.Equal(set(a), set(b))
}

// source is the running server's registry as an MCP source. Once that
// server is gone the tools stay listed and every call is answered with a
// failure saying so and what to do, rather than the client's transport
// closing.
func (a *attachment) source(log *slog.Logger) mcp.Source {
	return &attachedSource{inner: mcp.Registry(a.client), to: a.to, log: log}
}

type attachedSource struct {
	inner mcp.Source
	to    *serveEndpoints
	log   *slog.Logger

	mu   sync.Mutex
	gone error // why the server attached to is gone; nil while it runs
	last []mcp.Tool
}

// Tools implements mcp.Source. After the server attached to is gone it
// returns the last tools read, for good.
func (s *attachedSource) Tools(ctx context.Context) ([]mcp.Tool, <-chan struct{}, error) {
	if gone := s.goneErr(); gone != nil {
		return s.lastTools(), nil, nil
	}
	list, changed, err := s.inner.Tools(ctx)
	if err != nil {
		if gone := s.check(ctx); gone != nil {
			return s.lastTools(), nil, nil
		}
		return nil, nil, err
	}
	out := make([]mcp.Tool, len(list))
	for i, t := range list {
		t.Executor = s.wrap(t.Executor)
		out[i] = t
	}
	s.mu.Lock()
	s.last = out
	s.mu.Unlock()
	return out, changed, nil
}

func (s *attachedSource) lastTools() []mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *attachedSource) goneErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone
}

// check records, and returns, why the server attached to is gone, or nil
// while it runs.
func (s *attachedSource) check(ctx context.Context) error {
	if gone := s.goneErr(); gone != nil {
		return gone
	}
	err := s.to.alive(ctx)
	if err == nil {
		return nil
	}
	s.mu.Lock()
	first := s.gone == nil
	if first {
		s.gone = err
	}
	s.mu.Unlock()
	if first {
		s.log.Error("quiver serve: the quiver serve this one attached to stopped; calls fail until you restart both", "attached_to", s.to.describe(), "err", err)
	}
	return err
}

// failure is the answer to a call once the server attached to is gone.
func (s *attachedSource) failure(gone error) error {
	return toolcall.Fail(toolcall.KindUnavailable, toolcall.RecoveryFinish,
		"the quiver serve this MCP server attached to (%s) stopped (%v): restart quiver serve, then restart this MCP server (reconnect the client)", s.to.describe(), gone)
}

// wrap answers exec's failures with the reason once the server attached
// to is gone.
func (s *attachedSource) wrap(exec toolcall.Executor) toolcall.Executor {
	return toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		if gone := s.goneErr(); gone != nil {
			return nil, s.failure(gone)
		}
		res, err := exec.Execute(ctx, call)
		if (err != nil || res != nil && res.Failure != nil) && ctx.Err() == nil {
			if gone := s.check(ctx); gone != nil {
				return nil, s.failure(gone)
			}
		}
		return res, err
	})
}
