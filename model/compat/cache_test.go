package compat

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

// bothCheckpoints is what examples/records' run policy declares.
var bothCheckpoints = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}

func TestCacheCheckpointsAreIgnoredLeftOutOfTheBodyAndListed(t *testing.T) {
	for _, tc := range []struct {
		cache model.CacheCheckpoints
		want  []model.CacheCheckpoint
	}{
		{model.CacheCheckpoints{AfterSystem: true}, []model.CacheCheckpoint{model.CheckpointAfterSystem}},
		{model.CacheCheckpoints{AfterTools: true}, []model.CacheCheckpoint{model.CheckpointAfterTools}},
		{bothCheckpoints, []model.CacheCheckpoint{model.CheckpointAfterSystem, model.CheckpointAfterTools}},
	} {
		p := newProvider(t, replies("ok"))
		req := &model.Request{System: "You are DynoTable's assistant.", Messages: []model.Message{model.UserMessage("hi")}, Tools: catalogTools()[:2], Cache: tc.cache}
		resp, err := p.client().Complete(ctx(t), req)
		if err != nil {
			t.Fatalf("%v: %v", tc.want, err)
		}
		// The body is exactly the one without checkpoints.
		providerfake.AssertJSON(t, "request", p.Request(0).Body, body([]string{systemWire, userMsg("hi")}, toolsJSON(listTablesWire, runQueryWire), ""))
		if !slices.Equal(resp.IgnoredCheckpoints, tc.want) {
			t.Fatalf("IgnoredCheckpoints = %v, want %v", resp.IgnoredCheckpoints, tc.want)
		}
	}
}

func TestNoCheckpointRequestedNoneIgnored(t *testing.T) {
	p := newProvider(t, replies("ok"))
	resp, err := p.client().Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.IgnoredCheckpoints != nil {
		t.Fatalf("IgnoredCheckpoints = %v", resp.IgnoredCheckpoints)
	}
}

func TestStreamedResponseListsTheIgnoredCheckpoints(t *testing.T) {
	p := newProvider(t, sse(
		chunkHead+`[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}`,
		chunkHead+`[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	))
	st, err := p.client().Stream(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Cache: bothCheckpoints})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var done *model.Response
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if c.Kind == model.ChunkDone {
			done = c.Response
		}
	}
	if done == nil || !slices.Equal(done.IgnoredCheckpoints, bothCheckpoints.Requested()) {
		t.Fatalf("final response = %+v", done)
	}
	providerfake.AssertJSON(t, "request", p.Request(0).Body, body([]string{userMsg("hi")}, "", `"stream":true,"stream_options":{"include_usage":true}`))
}

func TestPortableSearchRoundsListEachIgnoredCheckpointOnce(t *testing.T) {
	p := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		callsTool("call_b1", "startExport", `{"table":"orders","format":"csv"}`),
	)
	req := portableRequest(model.UserMessage("Export orders to CSV"))
	req.Cache = bothCheckpoints
	resp, err := p.client().Complete(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want a search round and the business call", len(reqs))
	}
	for i, r := range reqs {
		if bytes.Contains(r.Body, []byte("cache")) {
			t.Fatalf("request %d carries a cache field: %s", i+1, r.Body)
		}
	}
	if !slices.Equal(resp.IgnoredCheckpoints, bothCheckpoints.Requested()) {
		t.Fatalf("IgnoredCheckpoints = %v, want each once over both rounds", resp.IgnoredCheckpoints)
	}
}
