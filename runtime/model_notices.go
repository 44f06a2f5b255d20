package runtime

import (
	"context"
	"slices"
	"sync"

	"github.com/quiver-go/quiver/model"
)

// This file carries what model responses report beside the plan — the
// prompt-cache checkpoints an adapter ignored — from the planning activity,
// where the planner calls the model, to workflow code, which alone emits
// events.

// ignoredCheckpoints gathers, during one planning activity, the cache
// checkpoints the model's responses list as ignored, in order and without
// repeats. It is safe for concurrent use (a planner may call the model
// from several goroutines).
type ignoredCheckpoints struct {
	mu   sync.Mutex
	list []model.CacheCheckpoint
}

// add records the checkpoints a response lists.
func (g *ignoredCheckpoints) add(cps []model.CacheCheckpoint) {
	if len(cps) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.list = model.AddCheckpoints(g.list, cps...)
}

// checkpoints returns what was gathered (nil when nothing was).
func (g *ignoredCheckpoints) checkpoints() []model.CacheCheckpoint {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.list)
}

// noticingClient is the model client a planner receives from
// plannerContext.Model: the agent's client, whose responses' ignored
// checkpoints it gathers for the planning activity's output. Requests and
// responses pass through unchanged.
type noticingClient struct {
	inner   model.Client
	ignored *ignoredCheckpoints
}

// Complete implements model.Client.
func (c *noticingClient) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	resp, err := c.inner.Complete(ctx, req)
	if resp != nil {
		c.ignored.add(resp.IgnoredCheckpoints)
	}
	return resp, err
}

// Stream implements model.Client: the final chunk's response is read as it
// passes.
func (c *noticingClient) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	st, err := c.inner.Stream(ctx, req)
	if err != nil || st == nil {
		return st, err
	}
	return &noticingStream{Streamer: st, ignored: c.ignored}, nil
}

// Unwrap returns the agent's client, for a planner that needs an optional
// interface of it (model.TokenCounter, …). Calls made on it directly are
// not noticed.
func (c *noticingClient) Unwrap() model.Client { return c.inner }

// noticingStream is a stream of noticingClient.
type noticingStream struct {
	model.Streamer
	ignored *ignoredCheckpoints
}

// Recv implements model.Streamer.
func (s *noticingStream) Recv() (model.Chunk, error) {
	ch, err := s.Streamer.Recv()
	if err == nil && ch.Kind == model.ChunkDone && ch.Response != nil {
		s.ignored.add(ch.Response.IgnoredCheckpoints)
	}
	return ch, err
}

// reportIgnoredCheckpoints emits CacheCheckpointIgnored for each checkpoint
// a planning step's model ignored that this run has not reported yet, and
// records it in the run state, so that later steps and continuations after
// a suspension do not report it again. Workflow code.
func (r *runner) reportIgnoredCheckpoints(cps []model.CacheCheckpoint) {
	for _, cp := range cps {
		if slices.Contains(r.st.IgnoredCheckpoints, cp) {
			continue
		}
		r.st.IgnoredCheckpoints = append(r.st.IgnoredCheckpoints, cp)
		r.emit(CacheCheckpointIgnored{Checkpoint: cp})
	}
}

var (
	_ model.Client   = (*noticingClient)(nil)
	_ model.Streamer = (*noticingStream)(nil)
)
