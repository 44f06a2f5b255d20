package faulttest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/stores"
)

// The test binary runs again as a registry or a provider when roleEnv is
// set (see startProc); the other variables configure the role.
const (
	roleEnv        = "QUIVER_FAULTTEST_ROLE" // "registry" or "provider"
	addrEnv        = "QUIVER_FAULTTEST_ADDR"
	dirEnv         = "QUIVER_FAULTTEST_DIR"
	leaseTTLEnv    = "QUIVER_FAULTTEST_LEASE_TTL"
	graceEnv       = "QUIVER_FAULTTEST_PUBLISHED_GRACE"
	urlEnv         = "QUIVER_FAULTTEST_URL"
	revisionEnv    = "QUIVER_FAULTTEST_REVISION"
	providerEnv    = "QUIVER_FAULTTEST_PROVIDER"
	maxInFlightEnv = "QUIVER_FAULTTEST_MAX_IN_FLIGHT"
	execLogEnv     = "QUIVER_FAULTTEST_EXEC_LOG"
	// redisURLEnv, when set, runs the registry on the Redis store and bus
	// there (dirEnv is then unused), under the key prefix redisPrefixEnv.
	redisURLEnv    = "QUIVER_FAULTTEST_REDIS_URL"
	redisPrefixEnv = "QUIVER_FAULTTEST_REDIS_PREFIX"
)

// pidHeader is the header in which a registry process says its pid, so
// that a test knows it reached the process it started.
const pidHeader = "Faulttest-Pid"

func TestMain(m *testing.M) {
	switch role := os.Getenv(roleEnv); role {
	case "":
		raiseParallel()
		os.Exit(m.Run())
	case "registry":
		os.Exit(exitCode(runRegistry()))
	case "provider":
		os.Exit(exitCode(runProvider()))
	default:
		fmt.Fprintf(os.Stderr, "faulttest: unknown role %q\n", role)
		os.Exit(2)
	}
}

// parallelTests is how many tests run at once unless -parallel says: the
// tests mostly wait (for processes, leases, deadlines), so more of them
// than the machine has cores (go test's default) keep the package short
// without loading it much.
const parallelTests = 8

// raiseParallel sets -test.parallel to parallelTests when the command line
// did not set it.
func raiseParallel() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(parallelTests)); err != nil {
			fmt.Fprintln(os.Stderr, "faulttest:", err)
		}
	}
}

func exitCode(err error) int {
	if err != nil {
		fmt.Fprintln(os.Stderr, "faulttest:", err)
		return 1
	}
	return 0
}

// roleContext ends on SIGTERM or SIGINT, or when the parent test process
// is gone (a role must not outlive a test binary that crashed).
func roleContext() (context.Context, context.CancelFunc) {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	parent := os.Getppid()
	go func() {
		for ctx.Err() == nil {
			if os.Getppid() != parent {
				fmt.Fprintln(os.Stderr, "faulttest: the parent test process is gone")
				os.Exit(3)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return ctx, cancel
}

func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// runRegistry is the "registry" role: a registry listening on
// $QUIVER_FAULTTEST_ADDR, logging to stderr, until it is signalled or
// killed. Its state is the embedded store in $QUIVER_FAULTTEST_DIR, or,
// when $QUIVER_FAULTTEST_REDIS_URL is set, the Redis store and bus there
// under the prefix $QUIVER_FAULTTEST_REDIS_PREFIX: a node of the registry
// every process on that Redis and prefix runs.
func runRegistry() error {
	ctx, cancel := roleContext()
	defer cancel()
	addr, dir := os.Getenv(addrEnv), os.Getenv(dirEnv)
	redisURL, prefix := os.Getenv(redisURLEnv), os.Getenv(redisPrefixEnv)
	if addr == "" || (dir == "" && redisURL == "") {
		return fmt.Errorf("the registry role needs %s, and %s or %s", addrEnv, dirEnv, redisURLEnv)
	}
	ttl, err := envDuration(leaseTTLEnv, time.Second)
	if err != nil {
		return err
	}
	grace, err := envDuration(graceEnv, time.Second)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// A killed predecessor's file lock goes with its process; wait a
	// little in case the kernel is slow to let it go.
	sc := stores.Config{Kind: stores.Embedded, Dir: dir, OpenTimeout: 5 * time.Second}
	if redisURL != "" {
		if prefix == "" {
			prefix = stores.DefaultPrefix
		}
		sc = stores.Config{Kind: stores.Redis, RedisURL: redisURL, Prefix: prefix}
	}
	pid := strconv.Itoa(os.Getpid())
	n, err := node.Start(ctx, node.Config{
		Store:  sc,
		Server: server.Config{Logger: log, LeaseTTL: ttl, PublishedGrace: grace},
		Addr:   addr,
		// Every answer names the process, so that a test knows which
		// registry process served it.
		Handler: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set(pidHeader, pid)
				h.ServeHTTP(w, r)
			})
		},
		ShutdownTimeout: 2 * time.Second,
	})
	if err != nil {
		return err
	}
	defer n.Close()
	log.Info("faulttest: registry serving", "addr", addr, "dir", dir, "redis", redisURL, "prefix", prefix, "pid", os.Getpid())
	select {
	case <-ctx.Done():
	case err := <-n.Failed():
		return err
	}
	return n.Close()
}

// runProvider is the "provider" role: registry.Serve of
// registrytest.Echo("echo") at $QUIVER_FAULTTEST_REVISION against
// $QUIVER_FAULTTEST_URL, logging each execution to
// $QUIVER_FAULTTEST_EXEC_LOG before running it.
func runProvider() error {
	ctx, cancel := roleContext()
	defer cancel()
	url, rev, logPath := os.Getenv(urlEnv), os.Getenv(revisionEnv), os.Getenv(execLogEnv)
	if url == "" || rev == "" || logPath == "" {
		return fmt.Errorf("the provider role needs %s, %s and %s", urlEnv, revisionEnv, execLogEnv)
	}
	maxInFlight := 4
	if v := os.Getenv(maxInFlightEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s: %w", maxInFlightEnv, err)
		}
		maxInFlight = n
	}
	exec, err := openExecLog(logPath)
	if err != nil {
		return err
	}
	defer exec.Close()
	c, err := registry.NewClient(url)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	err = registry.Serve(ctx, c, registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: rev, Provider: os.Getenv(providerEnv),
		MaxInFlight: maxInFlight, Logger: log,
	}, exec)
	if errors.Is(err, registry.ErrReplaced) {
		log.Info("faulttest: provider replaced")
		return nil
	}
	return err
}
