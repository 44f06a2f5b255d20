package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	mcpbench "github.com/quiver-go/quiver/mcp/bench"
)

// benchMCPOptions are the flags of quiver bench mcp.
type benchMCPOptions struct {
	sessions   int
	duration   time.Duration
	pause      time.Duration
	json       bool
	cpuProfile string
}

// newBenchMCPCommand returns quiver bench mcp.
func newBenchMCPCommand() *cobra.Command {
	var opts benchMCPOptions
	cmd := &cobra.Command{
		Use:   "mcp [--sessions N] [--duration D] [--pause P] [--json]",
		Short: "Measure MCP sessions under load against in-process calls",
		Long: `Start an MCP server in this process, serving the records example's workspace
toolset (run by the in-memory demo workspace, as quiver serve does) over
streamable HTTP on a loopback port with a full-tier bearer credential.
Connect --sessions client sessions of the official Go SDK at once, and have
each loop for --duration: tools/list, search_tools "count rows", and
tools/call countRows {"table":"sales.orders","filter":"status = 'late'"},
every request timed on its own and checked (the search finds countRows,
the call counts 12 late orders). --pause makes each session wait between
rounds, as an agent thinks between its requests; without it the sessions
load the server as much as the machine allows.

Two peers run first, with as many sessions or goroutines at once for a
tenth of --duration (between 250ms and 10s) each: the same rounds over the
SDK's in-memory transport (the same server code, JSON-RPC on a pipe, no
HTTP), and the executor that tools/call runs, called in-process with the
same payload. The difference between the HTTP tools/call and the
in-process call is what MCP adds: the client SDK, JSON-RPC over HTTP and
server-sent events on loopback, the server's credential, scope and
admission checks, the payload's canonicalization and validation, the
result's validation. After the loaded phase, one session on each path and
one peer goroutine make their requests one at a time for as long again:
the overhead with no queue.

Reported for each path and kind of request: requests, requests per second,
p50, p99 and max latency, errors; then the overhead at p50 (tools/call p50
minus the in-process p50), under load and one at a time. Errors are
transport errors, JSON-RPC errors, tool errors (isError) and answers
without what they must hold; the command exits 1 if there was one. Clients
and server share this machine's cores: under load, latencies are mostly
queueing (with N sessions in flight, latency = N / requests per second).`,
		Example: `  quiver bench mcp --sessions 20 --duration 2s
  quiver bench mcp --sessions 4 --duration 1s --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.sessions < 1 {
				return usagef("--sessions %d: want at least 1", opts.sessions)
			}
			if opts.duration <= 0 {
				return usagef("--duration %s: want a positive duration such as 60s", opts.duration)
			}
			if opts.pause < 0 {
				return usagef("--pause %s: want 0 or a positive duration such as 250ms", opts.pause)
			}
			return runBenchMCP(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.sessions, "sessions", mcpbench.DefaultSessions, "MCP client sessions at once (and peer goroutines)")
	f.DurationVar(&opts.duration, "duration", mcpbench.DefaultDuration, "how long the sessions loop")
	f.DurationVar(&opts.pause, "pause", 0, "how long each session waits between rounds, ±50% at random (0: none, as much load as the machine serves)")
	f.BoolVar(&opts.json, "json", false, `print {"sessions":N,"duration_s":…,"pause_ms":…,"tool":…,"query":…,"arguments":…,"protocol":…,"connect":{…},"connect_in_memory":{…},"loaded":{"sessions":N,"http":{"list":{"requests":N,"per_second":…,"p50_ms":…,"p99_ms":…,"max_ms":…,"errors":N},"search":{…},"call":{…}},"in_memory":{…},"in_process":{…},"overhead_p50_ms":…,"in_memory_overhead_p50_ms":…},"one_at_a_time":{…},"close":{…},"errors":{"transport":N,"rpc":N,"tool":N,"unexpected":N,"total":N},"peer_errors":N}`)
	f.StringVar(&opts.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof reads it)")
	_ = f.MarkHidden("cpuprofile")
	return cmd
}

// jsonBenchMCP is the --json output of quiver bench mcp.
type jsonBenchMCP struct {
	Sessions        int              `json:"sessions"`
	DurationS       float64          `json:"duration_s"`
	PauseMs         float64          `json:"pause_ms"`
	Tool            string           `json:"tool"`
	Query           string           `json:"query"`
	Arguments       string           `json:"arguments"`
	Protocol        string           `json:"protocol"`
	Connect         jsonBenchKind    `json:"connect"`
	ConnectInMemory jsonBenchKind    `json:"connect_in_memory"`
	Loaded          jsonBenchPhase   `json:"loaded"`
	OneAtATime      *jsonBenchPhase  `json:"one_at_a_time,omitempty"`
	Close           jsonBenchKind    `json:"close"`
	Errors          jsonBenchMCPErrs `json:"errors"`
	PeerErrors      int              `json:"peer_errors"`
}

type jsonBenchPhase struct {
	Sessions  int               `json:"sessions"`
	HTTP      jsonBenchRequests `json:"http"`
	InMemory  jsonBenchRequests `json:"in_memory"`
	InProcess jsonBenchKind     `json:"in_process"`
	// OverheadP50Ms is the HTTP tools/call's p50 minus the in-process
	// call's; InMemoryOverheadP50Ms the same for the in-memory transport.
	OverheadP50Ms         float64 `json:"overhead_p50_ms"`
	InMemoryOverheadP50Ms float64 `json:"in_memory_overhead_p50_ms"`
}

type jsonBenchRequests struct {
	List   jsonBenchKind `json:"list"`
	Search jsonBenchKind `json:"search"`
	Call   jsonBenchKind `json:"call"`
}

type jsonBenchKind struct {
	Requests   int     `json:"requests"`
	PerSecond  float64 `json:"per_second,omitempty"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
}

type jsonBenchMCPErrs struct {
	Transport  int `json:"transport"`
	RPC        int `json:"rpc"`
	Tool       int `json:"tool"`
	Unexpected int `json:"unexpected"`
	Total      int `json:"total"`
}

func runBenchMCP(ctx context.Context, stdout, stderr io.Writer, opts benchMCPOptions) error {
	serverGC()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopProfile, err := startCPUProfile(opts.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	rep, err := mcpbench.Run(ctx, mcpbench.Config{
		Sessions: opts.sessions, Duration: opts.duration, Pause: opts.pause,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	out := jsonBenchMCP{
		Sessions: rep.Sessions, DurationS: float64(rep.Duration.Milliseconds()) / 1000, PauseMs: ms(opts.pause),
		Tool: string(rep.Tool), Query: rep.Query, Arguments: rep.Arguments, Protocol: rep.Protocol,
		Connect: benchKind(rep.Connect), ConnectInMemory: benchKind(rep.ConnectInMemory),
		Loaded: benchPhase(rep.Loaded), Close: benchKind(rep.Close),
		Errors: jsonBenchMCPErrs{
			Transport: rep.Errors.Transport, RPC: rep.Errors.RPC, Tool: rep.Errors.Tool,
			Unexpected: rep.Errors.Unexpected, Total: rep.Errors.Total(),
		},
		PeerErrors: rep.PeerErrors,
	}
	if rep.OneAtATime != nil {
		one := benchPhase(*rep.OneAtATime)
		out.OneAtATime = &one
	}
	if opts.json {
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
	} else if err := printBenchMCP(stdout, out, rep); err != nil {
		return err
	}
	if n := out.Errors.Total + out.PeerErrors; n > 0 {
		return fmt.Errorf("%s; %s", count(n, "request failed", "requests failed"), firstBenchError(out))
	}
	return nil
}

func benchPhase(p mcpbench.Phase) jsonBenchPhase {
	return jsonBenchPhase{
		Sessions: p.Sessions, HTTP: benchRequests(p.HTTP), InMemory: benchRequests(p.InMemory),
		InProcess: benchKind(p.InProcess), OverheadP50Ms: ms(p.OverheadP50),
		InMemoryOverheadP50Ms: ms(p.InMemory.Call.P50 - p.InProcess.P50),
	}
}

func benchRequests(r mcpbench.Requests) jsonBenchRequests {
	return jsonBenchRequests{List: benchKind(r.List), Search: benchKind(r.Search), Call: benchKind(r.Call)}
}

func benchKind(f mcpbench.Figures) jsonBenchKind {
	k := jsonBenchKind{
		Requests: f.Requests, PerSecond: float64(int64(f.PerSecond*10+0.5)) / 10,
		P50Ms: ms(f.P50), P99Ms: ms(f.P99), MaxMs: ms(f.Max), Errors: f.Errors,
	}
	if f.FirstError != nil {
		k.FirstError = f.FirstError.Error()
	}
	return k
}

// namedKind is one row of the report.
type namedKind struct {
	path, request string
	sessions      int
	k             jsonBenchKind
}

// rows lists a phase's rows: each transport's requests, then the peer.
func (p *jsonBenchPhase) rows(tool string) []namedKind {
	return []namedKind{
		{"http", "tools/list", p.Sessions, p.HTTP.List},
		{"http", "search_tools", p.Sessions, p.HTTP.Search},
		{"http", "tools/call", p.Sessions, p.HTTP.Call},
		{"in-memory", "tools/list", p.Sessions, p.InMemory.List},
		{"in-memory", "search_tools", p.Sessions, p.InMemory.Search},
		{"in-memory", "tools/call", p.Sessions, p.InMemory.Call},
		{"in-process", tool, p.Sessions, p.InProcess},
	}
}

// firstBenchError names the first failure the report holds.
func firstBenchError(out jsonBenchMCP) string {
	kinds := []namedKind{{"http", "connect", out.Sessions, out.Connect}, {"in-memory", "connect", out.Sessions, out.ConnectInMemory}}
	kinds = append(kinds, out.Loaded.rows("call")...)
	if out.OneAtATime != nil {
		kinds = append(kinds, out.OneAtATime.rows("call")...)
	}
	kinds = append(kinds, namedKind{"", "close", out.Sessions, out.Close})
	for _, kd := range kinds {
		if kd.k.FirstError != "" {
			return fmt.Sprintf("the first of %s %s, %s: %s", kd.path, kd.request, count(kd.sessions, "session", "sessions"), kd.k.FirstError)
		}
	}
	return "no error message"
}

// printBenchMCP writes the figures as a table.
func printBenchMCP(w io.Writer, out jsonBenchMCP, rep *mcpbench.Report) error {
	tool := rep.Tool.Tool()
	fmt.Fprintf(w, "sessions  %d MCP sessions over streamable HTTP on loopback for %.1fs (protocol %s),\n", out.Sessions, out.DurationS, out.Protocol)
	fmt.Fprintf(w, "          each looping tools/list, search_tools %q, tools/call %s %s\n", out.Query, tool, out.Arguments)
	if out.PauseMs > 0 {
		fmt.Fprintf(w, "          with a pause of %.0fms (±50%%) after each round\n", out.PauseMs)
	}
	fmt.Fprintf(w, "peers     as many sessions over the SDK's in-memory transport, then goroutines calling\n")
	fmt.Fprintf(w, "          %s's executor in-process, for %.1fs each\n", tool, rep.Loaded.InProcess.Elapsed.Seconds())
	fmt.Fprintf(w, "connect   all at once: p50 %.3fms, p99 %.3fms over HTTP; p50 %.3fms in memory; closing: p50 %.3fms\n\n",
		out.Connect.P50Ms, out.Connect.P99Ms, out.ConnectInMemory.P50Ms, out.Close.P50Ms)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tREQUEST\tSESSIONS\tREQUESTS\tREQ/S\tP50\tP99\tMAX\tERRORS")
	phases := []*jsonBenchPhase{&out.Loaded}
	if out.OneAtATime != nil {
		phases = append(phases, out.OneAtATime)
	}
	for _, p := range phases {
		for _, r := range p.rows(tool) {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%.3fms\t%.3fms\t%.3fms\t%d\n", r.path, r.request, r.sessions, r.k.Requests, r.k.PerSecond, r.k.P50Ms, r.k.P99Ms, r.k.MaxMs, r.k.Errors)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\noverhead p50  %.3fms with %s (HTTP tools/call p50 - in-process p50; in memory: %.3fms)\n",
		out.Loaded.OverheadP50Ms, count(out.Loaded.Sessions, "session", "sessions"), out.Loaded.InMemoryOverheadP50Ms)
	if p := out.OneAtATime; p != nil {
		fmt.Fprintf(w, "overhead p50  %.3fms one request at a time (in memory: %.3fms)\n", p.OverheadP50Ms, p.InMemoryOverheadP50Ms)
	}
	e := out.Errors
	_, err := fmt.Fprintf(w, "errors        %d (transport %d, JSON-RPC %d, tool %d, unexpected %d); in-process %d\n",
		e.Total, e.Transport, e.RPC, e.Tool, e.Unexpected, out.PeerErrors)
	return err
}
