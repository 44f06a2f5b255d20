package anthropic_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
)

// TestRenderToolsIsWhatCompleteSends compares RenderTools with the tools
// array of the first request Complete sends, byte for byte, for each search
// variant, with and without a cache checkpoint after the tools.
func TestRenderToolsIsWhatCompleteSends(t *testing.T) {
	cached := request("Export my records.")
	cached.Cache.AfterTools = true
	eager := request("Look up r1.")
	eager.Tools = eager.Tools[:1]
	noTools := request("Hello.")
	noTools.Tools = nil
	cases := []struct {
		name string
		req  *model.Request
		opts []anthropic.Option
	}{
		{"bm25", request("Export my records."), nil},
		{"regex", request("Export my records."), []anthropic.Option{anthropic.WithSearch(anthropic.SearchRegex)}},
		{"client", request("Export my records."), []anthropic.Option{anthropic.WithSearch(anthropic.SearchClient)}},
		{"cache after tools", cached, nil},
		{"eager only", eager, nil},
		{"no tools", noTools, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, ok(message("msg_1", "end_turn", 3, `{"type":"text","text":"OK."}`)))
			if _, err := p.client(tc.opts...).Complete(context.Background(), tc.req); err != nil {
				t.Fatal(err)
			}
			sent := field(t, p.Request(0).Body, "tools")
			got, err := anthropic.RenderTools(tc.req, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, sent) {
				t.Errorf("RenderTools = %s\nsent: %s", got, sent)
			}
		})
	}
}

func TestRenderToolsRefusesWhatCompleteRefuses(t *testing.T) {
	req := request("Export my records.")
	req.MaxTokens = 0
	if _, err := anthropic.RenderTools(req); err == nil {
		t.Error("a request without MaxTokens rendered")
	}
	if _, err := anthropic.RenderTools(request("x"), anthropic.WithSearch(anthropic.SearchVariant(9))); err == nil {
		t.Error("an unknown search variant rendered")
	}
}
