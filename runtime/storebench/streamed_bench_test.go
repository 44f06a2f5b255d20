package storebench

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// answerWords is how many words the answer of BenchmarkStreamedAnswer
// has: the scripted model streams it as that many text pieces.
const answerWords = 400

// streamedAnswer is an answer of answerWords words.
var streamedAnswer = strings.TrimSpace(strings.Repeat("Sales rose in every region this quarter, led by north. ", answerWords/10))

// countingLog is a run log that counts the Append calls it delegates and
// the events they carry; every other method is delegated as is.
type countingLog struct {
	inner   runtime.RunLog
	appends atomic.Int64
	events  atomic.Int64
}

func (c *countingLog) Append(ctx context.Context, owner string, events []runtime.EventRecord) error {
	c.appends.Add(1)
	c.events.Add(int64(len(events)))
	return c.inner.Append(ctx, owner, events)
}

func (c *countingLog) Read(ctx context.Context, runID string, after int64, limit int) ([]runtime.EventRecord, error) {
	return c.inner.Read(ctx, runID, after, limit)
}

func (c *countingLog) Wait(ctx context.Context, runID string, after int64, timeout time.Duration) (bool, error) {
	return c.inner.Wait(ctx, runID, after, timeout)
}

func (c *countingLog) Run(ctx context.Context, runID string) (runtime.RunInfo, error) {
	return c.inner.Run(ctx, runID)
}

func (c *countingLog) Runs(ctx context.Context, f runtime.RunFilter) ([]runtime.RunInfo, error) {
	return c.inner.Runs(ctx, f)
}

func (c *countingLog) Renew(ctx context.Context, owner string, until time.Time) error {
	return c.inner.Renew(ctx, owner, until)
}

func (c *countingLog) Stale(ctx context.Context, now time.Time) ([]runtime.RunInfo, error) {
	return c.inner.Stale(ctx, now)
}

func (c *countingLog) Expire(ctx context.Context, before time.Time) ([]runtime.RunInfo, error) {
	return c.inner.Expire(ctx, before)
}

// BenchmarkStreamedAnswer: one op is a one-shot run of one planning step
// whose model answers answerWords words, with its events recorded in each
// log (the slow-follower variants aside): "streamed" streams the answer
// word by word (scripted WithStreaming: a text_delta event per word),
// "whole" delivers it as one text chunk. appends/run is how many Append
// calls the run log took per run — the live events are appended in
// background batches, so it depends on how fast the log takes them —
// and events/run how many events they carried. Streamed against whole,
// per log, is what streaming an answer adds to a run.
func BenchmarkStreamedAnswer(b *testing.B) {
	if n := len(strings.Fields(streamedAnswer)); n != answerWords {
		b.Fatalf("the answer has %d words, want %d", n, answerWords)
	}
	ctx := context.Background()
	for _, l := range runLogs {
		if l.slow {
			continue
		}
		for _, streamed := range []bool{true, false} {
			name := l.name + "/whole"
			if streamed {
				name = l.name + "/streamed"
			}
			b.Run(name, func(b *testing.B) {
				steps := make([]scripted.Step, b.N)
				for i := range steps {
					steps[i] = scripted.Reply(streamedAnswer)
				}
				client := scripted.New(steps...)
				if streamed {
					client = client.WithStreaming()
				}
				log := &countingLog{inner: l.open(b)}
				rt := newAnswerRuntime(b, log, client)
				b.ReportAllocs()
				log.appends.Store(0)
				log.events.Store(0)
				b.ResetTimer()
				for i := range b.N {
					h, err := rt.StartOneShot(ctx, "answer", runtime.RunInput{Messages: []model.Message{model.UserMessage("How did sales do?")}}, runtime.WithRunID(fmt.Sprint("r", i)))
					if err != nil {
						b.Fatal(err)
					}
					if out, err := h.Wait(ctx); err != nil || out.Status != runtime.StatusCompleted {
						b.Fatalf("run: %+v %v", out, err)
					}
				}
				b.StopTimer()
				// The run's end is appended after its live events, so
				// every Append of the runs has returned by now.
				events := float64(log.events.Load()) / float64(b.N)
				if streamed && events < answerWords {
					b.Fatalf("%.0f events per streamed run, want at least one per word (%d)", events, answerWords)
				}
				b.ReportMetric(float64(log.appends.Load())/float64(b.N), "appends/run")
				b.ReportMetric(events, "events/run")
			})
		}
	}
}

// newAnswerRuntime returns a runtime recording in log, running agent
// "answer" (no tools) on client.
func newAnswerRuntime(b *testing.B, log runtime.RunLog, client model.Client) *runtime.Runtime {
	b.Helper()
	rt, err := runtime.New(runtime.WithRunLog(log), runtime.WithModel(model.ModelClassDefault, client))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close() })
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "answer", Planner: planner.NewStandard()}); err != nil {
		b.Fatal(err)
	}
	return rt
}
