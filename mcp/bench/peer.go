package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// peer calls the tool in-process: the executor the server's tools/call
// runs, with the call the server would hand it (the canonical payload of
// Arguments, the tool's spec, call metadata).
type peer struct {
	exec    toolcall.Executor
	spec    tools.ToolSpec
	payload []byte
}

func newPeer(s *served) (*peer, error) {
	spec, ok := s.specs[Tool]
	if !ok {
		return nil, fmt.Errorf("bench: the workspace toolset has no %s", Tool)
	}
	payload, err := tools.CanonicalPayload(spec, []byte(Arguments), tools.PayloadLimits{})
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return &peer{exec: s.exec, spec: spec, payload: payload}, nil
}

// run calls the tool from workers goroutines, each making one call after
// the other until d has passed, and measures every call.
func (p *peer) run(ctx context.Context, workers int, d time.Duration, timeout time.Duration) Figures {
	recs := make([]recorder, workers)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := range workers {
		wg.Go(func() {
			rec := &recs[w]
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				call := &toolcall.Call{
					Ident: Tool, Spec: p.spec, Payload: p.payload,
					Meta: tools.CallMeta{RunID: "bench", ToolCallID: "peer-" + strconv.Itoa(w) + "-" + strconv.Itoa(i)},
				}
				cctx, cancel := context.WithTimeout(ctx, timeout)
				t := time.Now()
				res, err := p.exec.Execute(cctx, call)
				el := time.Since(t)
				cancel()
				rec.add(el, checkPeer(res, err))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	all := &recorder{}
	for i := range recs {
		all.merge(&recs[i])
	}
	return all.figures(elapsed)
}

// checkPeer checks an in-process call's outcome.
func checkPeer(res *toolcall.Result, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("%s in-process: %w", ToolName, err)
	case res == nil:
		return fmt.Errorf("%s in-process: no result", ToolName)
	case res.Failure != nil:
		return fmt.Errorf("%s in-process: %w", ToolName, res.Failure)
	}
	return checkCount(res.Result)
}
