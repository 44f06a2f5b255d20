package registry

import (
	"context"
	"fmt"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// waitPoll is how often WaitServed reads the listing.
const waitPoll = 10 * time.Millisecond

// WaitServed waits until the registry lists toolset with a live provider,
// at registration revision when revision is not "" — a deployment's
// readiness check after starting a provider, or a replacement. It reads
// the listing every 10 ms until ctx ends, and then says what it last saw.
func (c *Client) WaitServed(ctx context.Context, toolset, revision string) error {
	last := "not listed"
	for {
		res, err := c.ListToolsets(ctx, &gen.ListToolsetsPayload{})
		if err == nil {
			for _, ts := range res.Toolsets {
				if ts.Name != toolset {
					continue
				}
				if ts.Providers > 0 && (revision == "" || ts.Revision == revision) {
					return nil
				}
				last = fmt.Sprintf("listed at revision %q with %d providers", ts.Revision, ts.Providers)
			}
		} else if ctx.Err() == nil {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			want := "a provider"
			if revision != "" {
				want = fmt.Sprintf("a provider at revision %q", revision)
			}
			return fmt.Errorf("registry: toolset %q never had %s (%s): %w", toolset, want, last, ctx.Err())
		case <-time.After(waitPoll):
		}
	}
}
