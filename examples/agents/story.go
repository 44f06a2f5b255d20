package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/quiver-go/quiver/examples/agents/gen/agents/travel/planner"
	"github.com/quiver-go/quiver/examples/agents/gen/agents/weather/forecaster"
	"github.com/quiver-go/quiver/examples/agents/gen/agents/weather/forecaster/exports/forecast"
	"github.com/quiver-go/quiver/examples/agents/gen/agents/weather/forecaster/toolsets/stations"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
)

// The model ids the agents' configs pick their scripted models by.
const (
	plannerModel    = "planner-model"
	forecasterModel = "forecaster-model"
)

// question is the user's message to the planner.
const question = "I fly to Lisbon tomorrow: what should I pack?"

// readings are the stations' latest measurements, by city.
var readings = map[string]stations.ReadingResult{
	"Lisbon": {City: "Lisbon", Celsius: 19, RainMm: 3},
}

// run registers both agents on one runtime and runs the planner on the
// user's question, printing the story to w.
func run(ctx context.Context, w io.Writer) error {
	rt, err := runtime.New(
		// No agent uses the default class: a request reaching it fails.
		runtime.WithModel(model.ModelClassDefault, scripted.New()),
		runtime.WithModelID(plannerModel, plannerScript(w)),
		runtime.WithModelID(forecasterModel, forecasterScript(w)),
	)
	if err != nil {
		return err
	}
	stationsExec := toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p stations.ReadingPayload
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		r, ok := readings[p.City]
		if !ok {
			return nil, fmt.Errorf("no station in %s", p.City)
		}
		fmt.Fprintf(w, "stations: %s reads %d °C and %d mm of rain\n", r.City, r.Celsius, r.RainMm)
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		return &toolcall.Result{Result: b}, nil
	})
	// The planner first: it registers the forecast toolset as an agent
	// toolset, naming the forecaster, which may be registered after it
	// but before the first run.
	if err := planner.RegisterPlannerAgent(ctx, rt, planner.PlannerAgentConfig{
		SystemPrompt: "You plan trips. Ask the forecaster before you advise.",
		ModelID:      plannerModel,
	}); err != nil {
		return err
	}
	if err := forecaster.RegisterForecasterAgent(ctx, rt, forecaster.ForecasterAgentConfig{
		SystemPrompt: "You forecast the weather from the stations' readings.",
		ModelID:      forecasterModel,
		Executors:    map[string]toolcall.Executor{forecaster.ToolsetStations: stationsExec},
	}); err != nil {
		return err
	}

	fmt.Fprintf(w, "user: %s\n", question)
	out, err := planner.NewClient(rt).Run(ctx, runtime.RunInput{Messages: []model.Message{model.UserMessage(question)}})
	if err != nil {
		return err
	}
	if out.Status != runtime.StatusCompleted || out.Final == nil {
		return fmt.Errorf("the planner's run ended %s (%s) without an answer", out.Status, out.Reason)
	}
	fmt.Fprintf(w, "answer of %s: %s\n", out.Agent, out.Final.Text)
	return nil
}

// plannerScript is the planner's model: it calls the forecast tool, then
// advises from the forecast it reads.
func plannerScript(w io.Writer) *scripted.Client {
	return scripted.New(
		scripted.Choose(func(*model.Request) scripted.Step {
			payload := `{"city":"Lisbon","day":"tomorrow"}`
			fmt.Fprintf(w, "planner: calls forecast %s\n", payload)
			return scripted.Call("forecast", payload)
		}),
		scripted.Choose(func(req *model.Request) scripted.Step {
			var f forecast.ForecastResult
			if err := lastResult(req, &f); err != nil {
				return scripted.Fail(fmt.Errorf("planner: %w", err))
			}
			fmt.Fprintf(w, "planner: reads the forecast for %s: %s\n", f.City, f.Summary)
			return scripted.Reply("Pack a light jacket and an umbrella: in " + f.City + ", " + f.Summary)
		}),
	)
}

// forecasterScript is the forecaster's model, in its child run: it reads
// the forecast call's payload (its user message), reads the city's
// station, then answers with the tool's result, as JSON.
func forecasterScript(w io.Writer) *scripted.Client {
	return scripted.New(
		scripted.Choose(func(req *model.Request) scripted.Step {
			var p forecast.ForecastPayload
			if err := json.Unmarshal([]byte(lastUser(req)), &p); err != nil {
				return scripted.Fail(fmt.Errorf("forecaster: the user message is not the forecast payload: %w", err))
			}
			day := "today"
			if p.Day != nil {
				day = *p.Day
			}
			fmt.Fprintf(w, "forecaster (child run): asked for %s, %s; calls reading\n", p.City, day)
			payload, err := json.Marshal(stations.ReadingPayload{City: p.City})
			if err != nil {
				return scripted.Fail(err)
			}
			return scripted.Call("reading", string(payload))
		}),
		scripted.Choose(func(req *model.Request) scripted.Step {
			var r stations.ReadingResult
			if err := lastResult(req, &r); err != nil {
				return scripted.Fail(fmt.Errorf("forecaster: %w", err))
			}
			summary := fmt.Sprintf("mild at %d °C with light rain.", r.Celsius)
			if r.RainMm == 0 {
				summary = fmt.Sprintf("dry at %d °C.", r.Celsius)
			}
			answer, err := json.Marshal(forecast.ForecastResult{City: r.City, Summary: summary})
			if err != nil {
				return scripted.Fail(err)
			}
			fmt.Fprintf(w, "forecaster: answers %s\n", answer)
			return scripted.Reply(string(answer))
		}),
	)
}

// lastUser returns the text of the request's last user message.
func lastUser(req *model.Request) string {
	var text string
	for _, m := range req.Messages {
		if m.Role == model.RoleUser {
			text = m.TextContent()
		}
	}
	return text
}

// lastResult decodes the content of the request's last tool result into v.
func lastResult(req *model.Request, v any) error {
	var last *model.ToolResult
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				last = p.ToolResult
			}
		}
	}
	switch {
	case last == nil:
		return fmt.Errorf("no tool result to read")
	case last.IsError:
		return fmt.Errorf("%s failed: %s", last.Name, last.Content)
	}
	if err := json.Unmarshal(last.Content, v); err != nil {
		return fmt.Errorf("the result of %s: %w", last.Name, err)
	}
	return nil
}
