package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

// TestRenderToolsIsWhatCompleteSends compares RenderTools with the tools
// array of the first request Complete sends, byte for byte.
func TestRenderToolsIsWhatCompleteSends(t *testing.T) {
	eagerOnly := baseRequest()
	eagerOnly.Tools = catalog()[:1]
	forced := baseRequest()
	forced.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "send_invoice"}
	noTools := baseRequest()
	noTools.Tools = nil
	for name, req := range map[string]*model.Request{"deferred": baseRequest(), "eager only": eagerOnly, "forced": forced, "no tools": noTools} {
		t.Run(name, func(t *testing.T) {
			p, c := newProvider(t, exchange{body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "OK."))})
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(p.Request(0).Body, &body); err != nil {
				t.Fatal(err)
			}
			got, err := RenderTools(req)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, body["tools"]) {
				t.Errorf("RenderTools = %s\nsent: %s", got, body["tools"])
			}
		})
	}
}

func TestRenderToolsRefusesWhatCompleteRefuses(t *testing.T) {
	noBudget := baseRequest()
	noBudget.MaxTokens = 0
	if _, err := RenderTools(noBudget); err == nil {
		t.Error("deferred tools without MaxTokens rendered")
	}
	if _, err := RenderTools(nil); err == nil {
		t.Error("nil request rendered")
	}
}
