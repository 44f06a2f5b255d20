package openai

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

func TestCacheAfterToolsIsIgnoredAndListed(t *testing.T) {
	// The body is exactly the golden body of the same request without a
	// checkpoint.
	p, c := newProvider(t, exchange{golden: "plain", body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Record r1 is open."))})
	req := baseRequest()
	req.Tools = catalog()[:1]
	req.MaxTokens = 0
	req.Cache.AfterTools = true
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("an ignored checkpoint failed the request: %v", err)
	}
	equal(t, "ignored", resp.IgnoredCheckpoints, []model.CacheCheckpoint{model.CheckpointAfterTools})
	equal(t, "text", resp.Text(), "Record r1 is open.")
	if len(p.Requests()) != 1 {
		t.Fatalf("%d requests", len(p.Requests()))
	}
}

func TestCacheAfterSystemWithoutSystemPromptIsIgnoredAndListed(t *testing.T) {
	p, c := newProvider(t, exchange{body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "OK."))})
	req := baseRequest()
	req.System = ""
	req.Tools = catalog()[:1]
	req.Cache.AfterSystem = true
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("an ignored checkpoint failed the request: %v", err)
	}
	equal(t, "ignored", resp.IgnoredCheckpoints, []model.CacheCheckpoint{model.CheckpointAfterSystem})
	body := p.Body(0)
	if _, ok := body["instructions"]; ok {
		t.Error("instructions sent without a system prompt")
	}
	input := body["input"].([]any)
	equal(t, "input", input, []any{map[string]any{"role": "user", "content": "Export my records as CSV."}})
	raw := string(p.Request(0).Body)
	if strings.Contains(raw, "prompt_cache") {
		t.Errorf("the body carries a cache field: %s", raw)
	}
}

func TestCacheAfterSystemIsStillSentWhenAfterToolsIsIgnored(t *testing.T) {
	p, c := newProvider(t, exchange{golden: "cache_after_system", body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "OK."))})
	req := baseRequest()
	req.Tools = catalog()[:1]
	req.Cache = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "ignored", resp.IgnoredCheckpoints, []model.CacheCheckpoint{model.CheckpointAfterTools})
	if _, ok := p.Body(0)["instructions"]; ok {
		t.Error("instructions sent with a system cache checkpoint")
	}
}

func TestPlacedCheckpointsAreNotListed(t *testing.T) {
	_, c := newProvider(t, exchange{golden: "cache_after_system", body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "OK."))})
	req := baseRequest()
	req.Tools = catalog()[:1]
	req.Cache.AfterSystem = true
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.IgnoredCheckpoints != nil {
		t.Fatalf("IgnoredCheckpoints = %v, want none", resp.IgnoredCheckpoints)
	}
}

func TestStreamedResponseListsTheIgnoredCheckpoints(t *testing.T) {
	_, c := newProvider(t, exchange{golden: "plain", streamed: true, body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Record r1 is open."))})
	req := baseRequest()
	req.Tools = catalog()[:1]
	req.MaxTokens = 0
	req.Cache.AfterTools = true
	st, err := c.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for {
		ch, err := st.Recv()
		if err != nil {
			t.Fatalf("no ChunkDone: %v", err)
		}
		if ch.Kind == model.ChunkDone {
			if !slices.Equal(ch.Response.IgnoredCheckpoints, []model.CacheCheckpoint{model.CheckpointAfterTools}) {
				t.Fatalf("IgnoredCheckpoints = %v", ch.Response.IgnoredCheckpoints)
			}
			return
		}
	}
}
