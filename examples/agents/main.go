// Command agents runs, offline and in one process, a trip planner whose
// forecast tool is another agent (agent-as-tool), from the Goa design in
// design/ and the packages goa gen generated from it (gen/):
//
//   - the forecaster (service weather) reads its weather stations and
//     exports the forecast toolset; its generated agenttools package
//     registers that toolset as an agent toolset, whose calls run the
//     forecaster;
//   - the planner (service travel) uses it with
//     Use(AgentToolset("weather", "forecaster", "forecast")): its generated
//     RegisterPlannerAgent registers the agent toolset itself and asks for
//     no executor. Its call of forecast runs the forecaster as a child run
//     on the call's payload, whose final answer is the call's result.
//
// Each agent plays its own scripted model (model/scripted), picked by model
// id. It prints what each model read and answered.
//
//	go run ./examples/agents
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agents:", err)
		os.Exit(1)
	}
}
