package runtime

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
)

func TestOnMissingFieldsAwaitClarificationNeedsInterruptsAllowed(t *testing.T) {
	rt, err := New(WithModel(model.ModelClassDefault, scripted.New()))
	if err != nil {
		t.Fatal(err)
	}
	err = rt.RegisterAgent(AgentRegistration{Name: "a", Planner: planner.NewStandard(), Policy: RunPolicy{OnMissingFields: MissingFieldsAwaitClarification}})
	if err == nil || !strings.Contains(err.Error(), "InterruptsAllowed") {
		t.Fatalf("err = %v, want a registration error naming InterruptsAllowed", err)
	}
	if err := rt.RegisterAgent(AgentRegistration{Name: "b", Planner: planner.NewStandard(), Policy: RunPolicy{OnMissingFields: MissingFieldsAwaitClarification, InterruptsAllowed: true}}); err != nil {
		t.Fatalf("with interrupts allowed: %v", err)
	}
	if err := rt.RegisterAgent(AgentRegistration{Name: "c", Planner: planner.NewStandard(), Policy: RunPolicy{OnMissingFields: "ask_later"}}); err == nil {
		t.Fatal("an unknown OnMissingFields action was accepted")
	}
}
