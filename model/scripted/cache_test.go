package scripted_test

import (
	"slices"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

func TestIgnoreCacheListsTheRequestedCheckpoints(t *testing.T) {
	c := scripted.New(
		scripted.IgnoreCache(scripted.Call("lookup", `{"id":"r1"}`)),
		scripted.IgnoreCache(scripted.Reply("done")),
		scripted.Reply("plain"),
	)
	req := request("hi")
	req.Cache = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}
	both := []model.CacheCheckpoint{model.CheckpointAfterSystem, model.CheckpointAfterTools}
	if resp := complete(t, c, req); !slices.Equal(resp.IgnoredCheckpoints, both) || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "call_1" {
		t.Fatalf("first response = %+v", resp)
	}
	req.Cache = model.CacheCheckpoints{}
	if resp := complete(t, c, req); resp.IgnoredCheckpoints != nil || resp.Text() != "done" {
		t.Fatalf("no checkpoint requested: %+v", resp)
	}
	req.Cache.AfterTools = true
	if resp := complete(t, c, req); resp.IgnoredCheckpoints != nil {
		t.Fatalf("an unwrapped step ignored %v", resp.IgnoredCheckpoints)
	}
}

func TestIgnoreCacheKeepsConstructionErrors(t *testing.T) {
	if err := scripted.IgnoreCache(scripted.Call("", "")).Err(); err == nil {
		t.Fatal("the wrapped step's construction error was lost")
	}
	if err := scripted.IgnoreCache(scripted.Step{}).Err(); err == nil {
		t.Fatal("wrapping the zero Step was accepted")
	}
}
