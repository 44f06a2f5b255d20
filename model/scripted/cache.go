package scripted

import (
	"context"
	"errors"

	"github.com/quiver-go/quiver/model"
)

// IgnoreCache returns step played as by a provider without prompt caching:
// the response is step's, and its IgnoredCheckpoints list every checkpoint
// the request asks for (Request.Cache), as an adapter reports checkpoints
// it cannot place. It lets a test drive the reporting of ignored
// checkpoints without a provider. A step with a construction error keeps
// it.
func IgnoreCache(step Step) Step {
	s := Step{label: "IgnoreCache(" + step.String() + ")", err: step.err}
	if s.err != nil {
		return s
	}
	if step.play == nil {
		s.err = errors.New("IgnoreCache: the zero Step")
		return s
	}
	s.play = func(ctx context.Context, c *Client, req *model.Request) (*model.Response, error) {
		resp, err := step.play(ctx, c, req)
		if err != nil {
			return nil, err
		}
		resp.IgnoredCheckpoints = model.AddCheckpoints(resp.IgnoredCheckpoints, req.Cache.Requested()...)
		return resp, nil
	}
	return s
}
