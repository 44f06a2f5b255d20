package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/stores"
)

// Defaults of Options.
const (
	DefaultCalls       = 10000
	DefaultConcurrency = 64
)

// StoreFile is the store's file name in the data folder.
const StoreFile = "registry.db"

// Options configure Run.
type Options struct {
	// Calls is how many calls each path makes (DefaultCalls when 0).
	Calls int
	// Concurrency is how many consumers call at once on each path
	// (DefaultConcurrency when 0).
	Concurrency int
	// LatencyCalls is how many calls each path makes one at a time after
	// the loaded phase, for the overhead of the registry itself with no
	// queue in front of it (Calls/10, at most 2000, when 0; -1 skips it).
	LatencyCalls int
	// Dir is the data folder; the embedded store is Dir/registry.db.
	// Required for the embedded store.
	Dir string
	// Store is stores.Embedded (default) or stores.Redis.
	Store string
	// RedisURL is the Redis of the Redis store. The run's keys go under a
	// prefix of their own, deleted at the end.
	RedisURL string
	// Nodes is how many registry nodes share the store (Redis only; 1 by
	// default). The provider's stream is on the last node; consumers call
	// through every node in turn.
	Nodes int
	// Logger receives the registry's and the provider's logs; none when
	// nil.
	Logger *slog.Logger
}

// Result is what Run measured.
type Result struct {
	Calls, Concurrency int
	// Registry is the path through the registry: CallResolvedTool, the
	// store, the provider's stream, its posted outcome. Direct is the
	// peer: the same executor behind a plain HTTP endpoint.
	Registry, Direct Figures
	// OverheadP50 is Registry.P50 - Direct.P50. Under load it is mostly
	// queueing: with Concurrency calls in flight, a call waits for the
	// others (Little's law: latency = concurrency / throughput).
	OverheadP50 time.Duration
	// RegistryOne and DirectOne are the paths driven one call at a time
	// (LatencyCalls calls), and OverheadP50One their p50 difference: what
	// the registry adds to one call — two synced store writes, the
	// provider's stream and its posted outcome — with no queue.
	RegistryOne, DirectOne Figures
	OverheadP50One         time.Duration
	// Lost is how many registry calls (the measured ones and the warm-up
	// call) did not come back ok with their result; Duplicated how many
	// call ids the executor ran more than once, on either path.
	Lost, Duplicated int
	// StoreFile is the embedded store's path; StoreBytes its size once
	// closed. Store describes the store; Nodes is how many nodes served.
	StoreFile  string
	StoreBytes int64
	Store      string
	Nodes      int
}

// Run starts a registry on the embedded store in o.Dir on a loopback
// port, serves Toolset with registry.Serve and a Counter, starts the peer
// endpoint on the same Counter, and drives o.Calls calls on each path with
// o.Concurrency consumers: first the peer, then the registry. It returns
// an error when the set-up fails or ctx ends; lost and duplicated calls
// are in the Result.
func Run(ctx context.Context, o Options) (res *Result, err error) {
	if o.Calls == 0 {
		o.Calls = DefaultCalls
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.LatencyCalls == 0 {
		o.LatencyCalls = min(max(o.Calls/10, 1), 2000)
	}
	if o.Nodes == 0 {
		o.Nodes = 1
	}
	switch {
	case o.Calls < 1 || o.Concurrency < 1:
		return nil, fmt.Errorf("bench: calls %d and concurrency %d must be at least 1", o.Calls, o.Concurrency)
	case o.Store != stores.Redis && o.Dir == "":
		return nil, errors.New("bench: no data folder")
	case o.Store != stores.Redis && o.Nodes != 1:
		return nil, fmt.Errorf("bench: %d nodes need a store they share: the Redis store", o.Nodes)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	prefix, err := runPrefix()
	if err != nil {
		return nil, err
	}
	nodes, err := startNodes(ctx, o, prefix)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := nodes.stop(); cerr != nil && err == nil {
			err = cerr
		}
		if err == nil && nodes.file != "" {
			if fi, serr := os.Stat(nodes.file); serr == nil {
				res.StoreBytes = fi.Size()
			}
		}
	}()
	regURL := nodes.urls[len(nodes.urls)-1]

	// The clients' idle connections are closed before the servers stop:
	// a connection dialed and never used holds http.Server.Shutdown back
	// for 5s.
	clients := &http.Client{Transport: transport()}
	defer clients.CloseIdleConnections()

	exec := NewCounter()
	provider, err := registry.NewClient(regURL, registry.WithHTTPClient(clients))
	if err != nil {
		return nil, err
	}
	pctx, stopProvider := context.WithCancel(context.WithoutCancel(ctx))
	var serveErr error
	served := make(chan struct{})
	go func() {
		defer close(served)
		serveErr = registry.Serve(pctx, provider, registry.Registration{
			Toolset: Toolset(), Revision: "bench-1", Provider: "bench",
			MaxInFlight: max(o.Concurrency, 64), Logger: o.Logger,
		}, exec)
	}()
	defer func() {
		stopProvider()
		<-served
		if serveErr != nil && err == nil {
			err = fmt.Errorf("bench: provider: %w", serveErr)
		}
	}()

	directURL, stopDirect, err := serveHTTP(directHandler(exec), o.Logger)
	if err != nil {
		return nil, err
	}
	defer stopDirect()
	defer clients.CloseIdleConnections()
	direct := &directClient{url: directURL + "/call", http: clients}

	consumers := make([]*registry.Client, len(nodes.urls))
	for i, u := range nodes.urls {
		if consumers[i], err = registry.NewClient(u, registry.WithHTTPClient(clients)); err != nil {
			return nil, err
		}
	}
	token, err := waitProvider(ctx, consumers[0], served)
	if err != nil {
		select {
		case <-served:
			if serveErr != nil {
				err = fmt.Errorf("bench: the provider stopped: %w", serveErr)
			}
		default:
		}
		return nil, err
	}
	var turn atomic.Uint64
	viaRegistry := func(ctx context.Context, id, text string) error {
		consumer := consumers[int(turn.Add(1)%uint64(len(consumers)))]
		out, err := consumer.CallResolvedTool(ctx, &gen.CallResolvedToolPayload{
			Toolset: ToolsetName, Tool: ToolName, Token: token, CallID: id,
			Payload: payloadOf(text), TimeoutMs: 30000,
		})
		if err != nil {
			return fmt.Errorf("call %s: %w", id, err)
		}
		return checkOutcome(id, text, out)
	}
	viaDirect := func(ctx context.Context, id, text string) error {
		raw, err := direct.call(ctx, id, payloadOf(text))
		if err != nil {
			return fmt.Errorf("call %s: %w", id, err)
		}
		return checkResult(id, text, raw)
	}

	res = &Result{Calls: o.Calls, Concurrency: o.Concurrency, StoreFile: nodes.file, Store: nodes.describe, Nodes: len(nodes.urls)}
	// One call on each path first: the provider's stream is attached and
	// both paths have run once before the clock starts.
	if err := viaDirect(ctx, prefix+"-dw", "warm-up"); err != nil {
		return nil, fmt.Errorf("bench: warm-up: %w", err)
	}
	warmErr := viaRegistry(ctx, prefix+"-rw", "warm-up")
	res.Direct = drive(ctx, o.Calls, o.Concurrency, func(ctx context.Context, i int) error {
		return viaDirect(ctx, prefix+"-d"+strconv.Itoa(i), "call "+strconv.Itoa(i))
	})
	res.Registry = drive(ctx, o.Calls, o.Concurrency, func(ctx context.Context, i int) error {
		return viaRegistry(ctx, prefix+"-r"+strconv.Itoa(i), "call "+strconv.Itoa(i))
	})
	if o.LatencyCalls > 0 {
		res.DirectOne = drive(ctx, o.LatencyCalls, 1, func(ctx context.Context, i int) error {
			return viaDirect(ctx, prefix+"-d1-"+strconv.Itoa(i), "call "+strconv.Itoa(i))
		})
		res.RegistryOne = drive(ctx, o.LatencyCalls, 1, func(ctx context.Context, i int) error {
			return viaRegistry(ctx, prefix+"-r1-"+strconv.Itoa(i), "call "+strconv.Itoa(i))
		})
		res.OverheadP50One = res.RegistryOne.P50 - res.DirectOne.P50
		res.Lost += res.RegistryOne.Failed
	}
	if warmErr != nil {
		res.Lost++
		if res.Registry.FirstError == nil {
			res.Registry.FirstError = warmErr
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	res.Lost += res.Registry.Failed
	res.Duplicated = exec.Duplicated()
	res.OverheadP50 = res.Registry.P50 - res.Direct.P50
	return res, nil
}

// serveHTTP serves h on a free loopback port until stop is called.
func serveHTTP(h http.Handler, log *slog.Logger) (url string, stop func(), err error) {
	ln, err := loopback.Listen()
	if err != nil {
		return "", nil, fmt.Errorf("bench: listen: %w", err)
	}
	hs := server.HTTPServer(h, log)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			_ = hs.Close()
		}
		<-done
	}, nil
}

// transport keeps as many idle connections per host as the registry
// client does, so that both paths reuse their connections alike; the
// consumers, the provider and the direct path share it.
func transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 256
	t.IdleConnTimeout = 90 * time.Second
	return t
}

// waitProvider waits until the toolset has a provider, and returns its
// token. It fails when served is closed (Serve returned), ctx ended, or
// 10s passed.
func waitProvider(ctx context.Context, c *registry.Client, served <-chan struct{}) (string, error) {
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	go func() {
		select {
		case <-served:
			cancel()
		case <-wctx.Done():
		}
	}()
	if err := c.WaitServed(wctx, ToolsetName, ""); err != nil {
		select {
		case <-served:
			return "", errors.New("bench: the provider stopped")
		default:
		}
		return "", fmt.Errorf("bench: %w", err)
	}
	r, err := c.ResolveToolset(ctx, &gen.ResolveToolsetPayload{Name: ToolsetName})
	if err != nil {
		return "", fmt.Errorf("bench: resolve %s: %w", ToolsetName, err)
	}
	return r.Toolset.Token, nil
}

// runPrefix returns a random prefix for the run's call ids, so that runs
// sharing a data folder never reuse one.
func runPrefix() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "bench-" + hex.EncodeToString(b), nil
}

func payloadOf(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"text": text})
	return b
}

// checkOutcome checks that the registry's outcome is ok with the echo of
// text.
func checkOutcome(id, text string, out *gen.CallOutcome) error {
	if out.Outcome != "ok" {
		msg := ""
		if out.Error != nil {
			msg = *out.Error
		}
		return fmt.Errorf("call %s: outcome %s: %s", id, out.Outcome, msg)
	}
	raw, err := json.Marshal(out.Result)
	if err != nil {
		return fmt.Errorf("call %s: result: %w", id, err)
	}
	return checkResult(id, text, raw)
}

// checkResult checks that raw is {"text": text}.
func checkResult(id, text string, raw json.RawMessage) error {
	var r struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Text == nil || *r.Text != text {
		return fmt.Errorf("call %s: result %s, want the text %q", id, raw, text)
	}
	return nil
}
