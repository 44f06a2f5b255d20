package runtimetest

import (
	"testing"

	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

func testSmokeToolThenAnswer(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}},
		scripted.Call("lookup", `{"q":"orders"}`),
		scripted.Reply("There are 3 rows."),
	)
	out := f.run("How many orders?")
	if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonFinalResponse || out.Final.Text != "There are 3 rows." {
		t.Fatalf("out = %+v", out)
	}
	if got := f.executed(); len(got) != 1 || got[0] != "ws.lookup" {
		t.Fatalf("executed %v", got)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	res := toolResults(reqs[1].Messages)
	if len(res) != 1 || string(res[0].Content) != `{"rows":3}` {
		t.Fatalf("second request results = %+v", res)
	}
}
