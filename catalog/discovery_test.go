package catalog

import (
	"fmt"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

func TestDiscoveryStateAdvancesWithNewMessagesOnly(t *testing.T) {
	earlier := model.AssistantMessage("searched")
	earlier.SetDiscovery(model.Discovery{Tools: []tools.Ident{"data.indexStats"}, Searches: 2})
	state := NewTurn([]model.Message{model.UserMessage("before"), earlier, model.UserMessage("now")})
	if fmt.Sprint(state.Tools) != "[data.indexStats]" || state.Searches != 0 || state.Exhausted {
		t.Fatalf("a new turn starts from %+v: the history's tools, no search spent", state)
	}
	step := model.AssistantMessage("searched again")
	step.SetDiscovery(model.Discovery{Tools: []tools.Ident{"data.startExport", "data.indexStats"}, Searches: 1, Exhausted: true})
	state = Advance(state, []model.Message{step, model.AssistantMessage("no record")})
	if fmt.Sprint(state.Tools) != "[data.indexStats data.startExport]" || state.Searches != 1 || !state.Exhausted {
		t.Fatalf("advanced state %+v", state)
	}
}

func TestSnapshotCarriesTheStepsDiscoveryAndSearch(t *testing.T) {
	cat, err := New([]Entry{{Spec: spec(t, "data.openTable")}, {Spec: spec(t, "data.startExport"), Deferred: true}}, Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	portable := Search{Settings: model.SearchSettings{Mode: model.SearchPortable, ToolName: "find_tools"}}
	snap := cat.Snapshot(model.DiscoveryState{}, portable)
	want := "Tool 'startExport' not in active set. Call find_tools(query='startExport') to discover it, or use one of: openTable"
	if got := snap.Admit("startExport", "").Message; got != want {
		t.Fatalf("refusal %q\nwant %q", got, want)
	}
	snap = cat.Snapshot(model.DiscoveryState{Tools: []tools.Ident{"data.startExport"}}, portable)
	if a := snap.Admit("startExport", ""); a.Verdict != Admitted {
		t.Fatalf("discovered tool: %+v", a)
	}
}
