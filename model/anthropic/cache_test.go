package anthropic_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

func TestCacheCheckpointWithNothingToFollowIsIgnoredAndListed(t *testing.T) {
	p := newProvider(t, endTurn, endTurn, endTurn)
	// AfterSystem without a system prompt; AfterTools still placed.
	req := request("hi")
	req.System = ""
	req.Cache = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}
	resp, err := p.client().Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("an ignored checkpoint failed the request: %v", err)
	}
	if want := []model.CacheCheckpoint{model.CheckpointAfterSystem}; !slices.Equal(resp.IgnoredCheckpoints, want) {
		t.Fatalf("IgnoredCheckpoints = %v, want %v", resp.IgnoredCheckpoints, want)
	}
	body := p.Request(0).Body
	if s := field(t, body, "system"); s != nil {
		t.Fatalf("system sent without a system prompt: %s", s)
	}
	providerfake.AssertJSON(t, "tools", field(t, body, "tools"), toolsOf(`{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25","cache_control":{"type":"ephemeral"}}`))

	// AfterTools without tools; AfterSystem still placed.
	req = request("hi")
	req.Tools = nil
	req.Cache = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}
	resp, err = p.client().Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("an ignored checkpoint failed the request: %v", err)
	}
	if want := []model.CacheCheckpoint{model.CheckpointAfterTools}; !slices.Equal(resp.IgnoredCheckpoints, want) {
		t.Fatalf("IgnoredCheckpoints = %v, want %v", resp.IgnoredCheckpoints, want)
	}
	body = p.Request(1).Body
	if tools := field(t, body, "tools"); tools != nil {
		t.Fatalf("tools sent for a request without tools: %s", tools)
	}
	providerfake.AssertJSON(t, "system", field(t, body, "system"), `[{"type":"text","text":"You manage records.","cache_control":{"type":"ephemeral"}}]`)

	// Neither can be placed: the body carries no cache_control at all.
	req.System = ""
	resp, err = p.client().Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("ignored checkpoints failed the request: %v", err)
	}
	if want := req.Cache.Requested(); !slices.Equal(resp.IgnoredCheckpoints, want) {
		t.Fatalf("IgnoredCheckpoints = %v, want %v", resp.IgnoredCheckpoints, want)
	}
	if body := p.Request(2).Body; bytes.Contains(body, []byte("cache_control")) {
		t.Fatalf("the body carries cache_control: %s", body)
	}
}

func TestPlacedCacheCheckpointsAreNotListed(t *testing.T) {
	p := newProvider(t, endTurn)
	req := request("hi")
	req.Cache = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}
	st, err := p.client().Stream(context.Background(), req)
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
			if ch.Response.IgnoredCheckpoints != nil {
				t.Fatalf("IgnoredCheckpoints = %v, want none", ch.Response.IgnoredCheckpoints)
			}
			break
		}
	}
	if body := p.Request(0).Body; bytes.Count(body, []byte("cache_control")) != 2 {
		t.Fatalf("want cache_control on the system block and the last tool: %s", body)
	}
}
