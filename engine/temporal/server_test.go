package temporal_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/server/temporaltest"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/temporal"
)

// server is the in-process Temporal server every test of the package
// shares; each engine polls a task queue of its own. testClient is its
// default client, made before the tests run: the test server makes
// clients without a lock, so the parallel tests make theirs with
// newClient.
var (
	server     *temporaltest.TestServer
	testClient client.Client
	clientMu   sync.Mutex
)

// newClient returns a client of the test server with opts.
func newClient(opts client.Options) client.Client {
	clientMu.Lock()
	defer clientMu.Unlock()
	return server.NewClientWithOptions(opts)
}

// quiet drops the SDK's logs: failures reach the tests as errors.
var quiet = sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))

func TestMain(m *testing.M) {
	server = temporaltest.NewServer(temporaltest.WithBaseClientOptions(client.Options{Logger: quiet}))
	testClient = server.GetDefaultClient()
	code := m.Run()
	server.Stop()
	os.Exit(code)
}

var queues atomic.Int64

// newQueue names a task queue no other engine of the test binary polls.
func newQueue(t testing.TB) string {
	return fmt.Sprintf("quiver-test-%d", queues.Add(1))
}

// newWorker returns a worker engine on queue, stopped when the test ends.
func newWorker(t testing.TB, queue string, opts temporal.Options) *temporal.Engine {
	t.Helper()
	e, err := temporal.NewWorker(testClient, queue, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e
}

// recorder is an engine that remembers the workflows started through it,
// so that a test can replay their histories (and their children's).
type recorder struct {
	*temporal.Engine
	mu  sync.Mutex
	ids []string
}

func (r *recorder) StartWorkflow(ctx context.Context, req engine.StartRequest) (engine.WorkflowHandle, error) {
	h, err := r.Engine.StartWorkflow(ctx, req)
	if err == nil {
		r.mu.Lock()
		r.ids = append(r.ids, h.ID())
		r.mu.Unlock()
	}
	return h, err
}

// histories returns the history of every workflow started through r and
// of every child workflow they started, transitively.
func (r *recorder) histories(t testing.TB) map[string]*historypb.History {
	t.Helper()
	r.mu.Lock()
	queue := append([]string(nil), r.ids...)
	r.mu.Unlock()
	out := map[string]*historypb.History{}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if out[id] != nil {
			continue
		}
		h := history(t, id)
		out[id] = h
		for _, ev := range h.Events {
			if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
				queue = append(queue, a.GetWorkflowExecution().GetWorkflowId())
			}
		}
	}
	return out
}

// replayAll replays every history r recorded against r's workflow code.
func (r *recorder) replayAll(t testing.TB) int {
	t.Helper()
	hs := r.histories(t)
	for id, h := range hs {
		if err := r.ReplayHistory(quiet, h); err != nil {
			t.Errorf("replay of workflow %s: %v", id, err)
		}
	}
	return len(hs)
}

// history reads the whole history of the latest run of workflow id.
func history(t testing.TB, id string) *historypb.History {
	t.Helper()
	it := testClient.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", id, err)
		}
		h.Events = append(h.Events, ev)
	}
	return h
}
