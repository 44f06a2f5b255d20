package bench

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/httpauth"
)

func TestRunMeasuresEveryKindWithoutErrors(t *testing.T) {
	rep, err := Run(context.Background(), Config{Sessions: 4, Duration: time.Second, PeerDuration: 200 * time.Millisecond, OneAtATime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Errors.Total() + rep.PeerErrors; n != 0 {
		t.Fatalf("%d errors (%+v, peer %d): %v", n, rep.Errors, rep.PeerErrors, firstErrors(rep))
	}
	if rep.Sessions != 4 || rep.Connect.Requests != 4 || rep.ConnectInMemory.Requests != 4 || rep.Close.Requests != 8 || rep.Duration < time.Second {
		t.Errorf("sessions %d, connected %d and %d in memory, closed %d, duration %s", rep.Sessions, rep.Connect.Requests, rep.ConnectInMemory.Requests, rep.Close.Requests, rep.Duration)
	}
	if rep.Protocol == "" {
		t.Error("no protocol version")
	}
	if rep.OneAtATime == nil {
		t.Fatal("the one-at-a-time phase did not run")
	}
	for _, ph := range []*Phase{&rep.Loaded, rep.OneAtATime} {
		kinds := map[string]Figures{"in-process": ph.InProcess}
		for path, reqs := range map[string]Requests{"HTTP": ph.HTTP, "in memory": ph.InMemory} {
			kinds[path+" tools/list"], kinds[path+" search_tools"], kinds[path+" tools/call"] = reqs.List, reqs.Search, reqs.Call
			// A session makes its requests in rounds: list, search, call.
			if reqs.List.Requests != reqs.Call.Requests || reqs.Search.Requests != reqs.Call.Requests {
				t.Errorf("%d sessions, %s: %d lists, %d searches, %d calls", ph.Sessions, path, reqs.List.Requests, reqs.Search.Requests, reqs.Call.Requests)
			}
		}
		for kind, f := range kinds {
			if f.Requests == 0 || f.P50 <= 0 || f.P99 < f.P50 || f.Max < f.P99 || f.PerSecond <= 0 {
				t.Errorf("%d sessions: %s was not measured: %+v", ph.Sessions, kind, f)
			}
		}
		if ph.OverheadP50 != ph.HTTP.Call.P50-ph.InProcess.P50 {
			t.Errorf("%d sessions: overhead %s", ph.Sessions, ph.OverheadP50)
		}
	}
}

// firstErrors lists the first error of every kind that failed.
func firstErrors(rep *Report) []error {
	var out []error
	all := []Figures{rep.Connect, rep.ConnectInMemory, rep.Close}
	for _, ph := range []*Phase{&rep.Loaded, rep.OneAtATime} {
		if ph != nil {
			all = append(all, ph.HTTP.List, ph.HTTP.Search, ph.HTTP.Call, ph.InMemory.List, ph.InMemory.Search, ph.InMemory.Call, ph.InProcess)
		}
	}
	for _, f := range all {
		if f.FirstError != nil {
			out = append(out, f.FirstError)
		}
	}
	return out
}

func TestRunPausesBetweenRounds(t *testing.T) {
	rep, err := Run(context.Background(), Config{Sessions: 2, Duration: time.Second, Pause: 200 * time.Millisecond, PeerDuration: 100 * time.Millisecond, OneAtATime: -1})
	if err != nil {
		t.Fatal(err)
	}
	// A pause lasts between 100ms and 300ms: a session makes 4 to 11
	// rounds in a second.
	if n := rep.Loaded.HTTP.Call.Requests; n < 2*4 || n > 2*11 || rep.Errors.Total() > 0 {
		t.Errorf("%d calls by 2 sessions pausing 200ms for 1s; errors %+v", n, rep.Errors)
	}
	if rep.OneAtATime != nil {
		t.Error("OneAtATime -1 ran the one-at-a-time phase")
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	for _, c := range []Config{{Sessions: -1}, {Duration: -time.Second}, {Pause: -time.Second}} {
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v ran", c)
		}
	}
}

func TestRunStopsWhenCanceled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := Run(ctx, Config{Sessions: 2, Duration: time.Minute}); err == nil {
		t.Error("Run returned no error when its context ended")
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Run took %s to stop", d)
	}
}

// BenchmarkMCPCall runs Run with 32 sessions for b.N × 10ms, for
// profiles: go test -run '^$' -bench MCPCall -benchtime 500x -cpuprofile cpu.out ./mcp/bench/
func BenchmarkMCPCall(b *testing.B) {
	rep, err := Run(context.Background(), Config{Sessions: 32, Duration: time.Duration(b.N) * 10 * time.Millisecond, OneAtATime: -1})
	if err != nil {
		b.Fatal(err)
	}
	if n := rep.Errors.Total(); n > 0 {
		b.Fatalf("%d errors: %+v", n, rep.Errors)
	}
	b.ReportMetric(rep.Loaded.HTTP.Call.PerSecond, "calls/s")
	b.ReportMetric(float64(rep.Loaded.HTTP.Call.P50.Microseconds()), "call-p50-µs")
	b.ReportMetric(float64(rep.Loaded.InMemory.Call.P50.Microseconds()), "in-memory-p50-µs")
	b.ReportMetric(float64(rep.Loaded.InProcess.P50.Microseconds()), "in-process-p50-µs")
	b.ReportMetric(float64(rep.Loaded.OverheadP50.Microseconds()), "overhead-p50-µs")
}

func TestFailuresAreClassified(t *testing.T) {
	ctx := context.Background()
	s, err := serve(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	transport := clientTransport(1)
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	cs, err := connectHTTP(ctx, s.url, &http.Client{Transport: httpauth.BearerTransport{Key: s.key, Base: transport}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := &client{cs: cs}

	// An unknown tool is a JSON-RPC error.
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "noSuchTool", Arguments: map[string]any{}})
	if err := c.fail(c.checkCall(nil, err)); err == nil || c.classes.RPC != 1 {
		t.Errorf("unknown tool: %v, %+v", err, c.classes)
	}
	// countRows before a search finds it is a tool error (the search to
	// make), as are arguments the schema refuses.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolName, Arguments: json.RawMessage(Arguments)})
	if err := c.fail(c.checkCall(res, err)); err == nil || c.classes.Tool != 1 {
		t.Errorf("call before a search: %v, %+v", err, c.classes)
	}
	// tools/list before a search holds the search tool only: fine; after
	// one, it must hold countRows too.
	c.searched = true
	list, err := cs.ListTools(ctx, nil)
	if err := c.fail(c.checkList(list, err)); err == nil || c.classes.Unexpected != 1 {
		t.Errorf("list without countRows: %v, %+v", err, c.classes)
	}
	// A server that does not answer is a transport error.
	_, err = connectHTTP(ctx, "http://127.0.0.1:1/mcp", &http.Client{Transport: transport})
	if err := c.fail(err); err == nil || c.classes.Transport != 1 || c.classes.Total() != 4 {
		t.Errorf("no server: %v, %+v", err, c.classes)
	}
}
