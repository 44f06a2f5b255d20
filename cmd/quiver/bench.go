package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/internal/boundedinput"
	"github.com/quiver-go/quiver/registry/bench"
	"github.com/quiver-go/quiver/registry/stores"
)

// newBenchCommand returns quiver bench and its subcommands.
func newBenchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure Quiver's parts end to end",
		Args:  noArgs,
		RunE:  helpWhenBare,
	}
	cmd.AddCommand(newBenchRegistryCommand())
	cmd.AddCommand(newBenchMCPCommand())
	return cmd
}

// benchRegistryOptions are the flags of quiver bench registry.
type benchRegistryOptions struct {
	calls, concurrency, latencyCalls, nodes int
	store                                   storeFlags
	data                                    dataFolder
	json                                    bool
	cpuProfile                              string
}

// newBenchRegistryCommand returns quiver bench registry.
func newBenchRegistryCommand() *cobra.Command {
	opts := benchRegistryOptions{data: dataFolder{temporary: true}}
	cmd := &cobra.Command{
		Use:   "registry [--calls N] [--concurrency C] [--data DIR | --store redis --redis-url URL [--nodes N]] [--json]",
		Short: "Measure calls through the registry against direct HTTP calls",
		Long: `Start a registry in this process, on the embedded store and a loopback port,
serve a one-tool toolset (echo) with the provider SDK, and make --calls
calls to it from --concurrency consumers through CallResolvedTool, each
with a call id of its own. The peer runs first: the same executor behind a
plain net/http JSON endpoint on loopback, called directly with the same
concurrency, so that the difference is what the registry adds (validation,
two durable store writes per call, the provider's stream and its posted
outcome) over a direct HTTP call.

Reported for each path: calls per second, p50 and p99 latency; then the
overhead at p50 (the registry's p50 minus the direct call's), the calls
lost (no ok outcome with the expected result) and duplicated (run more
than once: the executor counts every call id), and the size of the store
file. The command exits 1 if a call was lost or duplicated.

The store is in a temporary folder, removed afterwards, unless --data DIR
names one (its registry.db is kept). The figures depend on the machine,
its load and its disk: the store syncs every commit. With --store redis
--redis-url URL the registry runs on that Redis (its keys under a prefix of
the run's own, deleted afterwards), as --nodes nodes sharing it: the
provider's stream is on the last node and the consumers call through every
node in turn, so most calls cross from one node to another.`,
		Example: `  quiver bench registry --calls 200
  quiver bench registry --calls 200 --concurrency 8 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.calls < 1 {
				return usagef("--calls %d: want at least 1", opts.calls)
			}
			if opts.concurrency < 1 {
				return usagef("--concurrency %d: want at least 1", opts.concurrency)
			}
			if err := opts.store.check(); err != nil {
				return err
			}
			if opts.nodes < 1 || (opts.nodes > 1 && opts.store.kind != stores.Redis) {
				return usagef("--nodes %d: want 1, or more with --store redis (nodes share a store)", opts.nodes)
			}
			return runBenchRegistry(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.calls, "calls", bench.DefaultCalls, "calls on each path")
	f.IntVar(&opts.nodes, "nodes", 1, "registry nodes sharing the store (--store redis)")
	opts.store.addFlags(cmd)
	f.IntVar(&opts.concurrency, "concurrency", bench.DefaultConcurrency, "consumers calling at once on each path")
	f.IntVar(&opts.latencyCalls, "latency-calls", 0, "calls made one at a time on each path after the loaded phase (default calls/10, at most 2000; -1 skips them)")
	opts.data.addFlag(cmd)
	f.BoolVar(&opts.json, "json", false, `print {"calls":N,"concurrency":N,"registry":{"calls_per_second":…,"p50_ms":…,"p99_ms":…,"failed":N},"direct":{…},"overhead_p50_ms":…,"latency_calls":N,"registry_one_at_a_time":{…},"direct_one_at_a_time":{…},"overhead_p50_one_at_a_time_ms":…,"lost":N,"duplicated":N,"store":{"file":…,"bytes":N,"kept":…}}`)
	f.StringVar(&opts.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof reads it)")
	_ = f.MarkHidden("cpuprofile")
	return cmd
}

// jsonBench is the --json output of quiver bench registry.
type jsonBench struct {
	Calls         int           `json:"calls"`
	Concurrency   int           `json:"concurrency"`
	Registry      jsonBenchPath `json:"registry"`
	Direct        jsonBenchPath `json:"direct"`
	OverheadP50Ms float64       `json:"overhead_p50_ms"`
	// One call at a time on each path: the registry's own cost, no queue.
	LatencyCalls     int           `json:"latency_calls"`
	RegistryOne      jsonBenchPath `json:"registry_one_at_a_time"`
	DirectOne        jsonBenchPath `json:"direct_one_at_a_time"`
	OverheadP50OneMs float64       `json:"overhead_p50_one_at_a_time_ms"`
	Lost             int           `json:"lost"`
	Duplicated       int           `json:"duplicated"`
	Store            jsonBenchFile `json:"store"`
}

type jsonBenchPath struct {
	CallsPerSecond float64 `json:"calls_per_second"`
	P50Ms          float64 `json:"p50_ms"`
	P99Ms          float64 `json:"p99_ms"`
	Failed         int     `json:"failed"`
	FirstError     string  `json:"first_error,omitempty"`
}

type jsonBenchFile struct {
	Kind     string `json:"kind"`
	Describe string `json:"describe"`
	Nodes    int    `json:"nodes"`
	// File and Bytes are the embedded store's file and its size.
	File  string `json:"file,omitempty"`
	Bytes int64  `json:"bytes"`
	// Kept is false when the file was in a temporary folder, removed.
	Kept bool `json:"kept"`
}

func runBenchRegistry(ctx context.Context, stdout, stderr io.Writer, opts benchRegistryOptions) error {
	serverGC()
	dir, remove, err := opts.data.open()
	if err != nil {
		return err
	}
	defer remove()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopProfile, err := startCPUProfile(opts.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	res, err := bench.Run(ctx, bench.Options{
		Calls: opts.calls, Concurrency: opts.concurrency, LatencyCalls: opts.latencyCalls, Dir: dir,
		Store: opts.store.kind, RedisURL: opts.store.redisURL, Nodes: opts.nodes,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	out := jsonBench{
		Calls: res.Calls, Concurrency: res.Concurrency,
		Registry: benchPath(res.Registry), Direct: benchPath(res.Direct),
		OverheadP50Ms: ms(res.OverheadP50), Lost: res.Lost, Duplicated: res.Duplicated,
		LatencyCalls: res.RegistryOne.Calls, RegistryOne: benchPath(res.RegistryOne), DirectOne: benchPath(res.DirectOne),
		OverheadP50OneMs: ms(res.OverheadP50One),
		Store:            jsonBenchFile{Kind: opts.store.kind, Describe: res.Store, Nodes: res.Nodes, File: res.StoreFile, Bytes: res.StoreBytes, Kept: opts.data.flagGiven},
	}
	if opts.json {
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
	} else if err := printBench(stdout, out); err != nil {
		return err
	}
	return benchFailure(res)
}

func benchPath(f bench.Figures) jsonBenchPath {
	p := jsonBenchPath{CallsPerSecond: float64(int64(f.PerSecond*10+0.5)) / 10, P50Ms: ms(f.P50), P99Ms: ms(f.P99), Failed: f.Failed}
	if f.FirstError != nil {
		p.FirstError = f.FirstError.Error()
	}
	return p
}

// ms returns d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// printBench writes the figures as a table.
func printBench(w io.Writer, out jsonBench) error {
	kept := "removed"
	if out.Store.Kept {
		kept = "kept"
	}
	fmt.Fprintf(w, "calls    %d on each path, %d concurrent consumers\n", out.Calls, out.Concurrency)
	if out.Store.File != "" {
		fmt.Fprintf(w, "store    embedded bbolt, %s (%s): %s\n\n", out.Store.File, kept, strings.ReplaceAll(boundedinput.FormatSize(out.Store.Bytes), " ", ""))
	} else {
		fmt.Fprintf(w, "store    %s, %d node(s)\n\n", out.Store.Describe, out.Store.Nodes)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tCALLS/S\tP50\tP99\tFAILED")
	fmt.Fprintf(tw, "registry\t%.0f\t%.3fms\t%.3fms\t%d\n", out.Registry.CallsPerSecond, out.Registry.P50Ms, out.Registry.P99Ms, out.Registry.Failed)
	fmt.Fprintf(tw, "direct\t%.0f\t%.3fms\t%.3fms\t%d\n", out.Direct.CallsPerSecond, out.Direct.P50Ms, out.Direct.P99Ms, out.Direct.Failed)
	if out.LatencyCalls > 0 {
		fmt.Fprintf(tw, "registry, one at a time\t%.0f\t%.3fms\t%.3fms\t%d\n", out.RegistryOne.CallsPerSecond, out.RegistryOne.P50Ms, out.RegistryOne.P99Ms, out.RegistryOne.Failed)
		fmt.Fprintf(tw, "direct, one at a time\t%.0f\t%.3fms\t%.3fms\t%d\n", out.DirectOne.CallsPerSecond, out.DirectOne.P50Ms, out.DirectOne.P99Ms, out.DirectOne.Failed)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\noverhead p50  %.3fms under load (registry p50 - direct p50; mostly queueing)\n", out.OverheadP50Ms)
	if out.LatencyCalls > 0 {
		fmt.Fprintf(w, "overhead p50  %.3fms one call at a time (%d calls)\n", out.OverheadP50OneMs, out.LatencyCalls)
	}
	fmt.Fprintf(w, "lost          %d\n", out.Lost)
	_, err := fmt.Fprintf(w, "duplicated    %d\n", out.Duplicated)
	return err
}

// benchFailure is the run's failure: calls lost or duplicated, or direct
// calls that failed (the peer's figures would not hold).
func benchFailure(res *bench.Result) error {
	var msgs []string
	if res.Lost > 0 || res.Duplicated > 0 {
		msgs = append(msgs, fmt.Sprintf("the registry lost %s and duplicated %d", count(res.Lost, "call", "calls"), res.Duplicated))
		if res.Registry.FirstError != nil {
			msgs = append(msgs, fmt.Sprintf("first failure: %v", res.Registry.FirstError))
		}
	}
	if res.Direct.Failed > 0 {
		msgs = append(msgs, fmt.Sprintf("%s of the direct path failed, first: %v", count(res.Direct.Failed, "call", "calls"), res.Direct.FirstError))
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}

// startCPUProfile writes a CPU profile to path (--cpuprofile) until the
// returned stop is called; an empty path profiles nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
