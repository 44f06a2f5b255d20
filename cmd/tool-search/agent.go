package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools/contract"
)

const (
	// agentName is the one agent of the quickstart.
	agentName = "weather-assistant"
	// sessionID groups the turns of a conversation: a later turn replays
	// the earlier ones, search records included.
	sessionID = "tool-search"
	// question is the user's turn the program runs.
	question = "What's the weather in Tokyo right now?"
	// maxTokens caps each model invocation, search rounds included. OpenAI
	// and Anthropic need a cap when tools are deferred; reasoning models
	// spend part of it thinking.
	maxTokens = 4096
)

// weatherTools is the toolset: get_weather, which the agent defers, and
// convert_temperature, which it advertises inline.
var weatherTools = contract.ToolsetDeclaration{
	Name:        "weather",
	Description: "Weather and unit tools.",
	Tools: []contract.ToolDeclaration{
		{
			Name:        "get_weather",
			Title:       "Get the weather",
			Description: "Current weather of a city: condition, temperature, humidity and wind.",
			Keywords:    []string{"forecast", "temperature", "rain", "conditions"},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"The city, e.g. Tokyo."}},"required":["city"]}`),
		},
		{
			Name:        "convert_temperature",
			Title:       "Convert a temperature",
			Description: "Convert a temperature between degrees Celsius and Fahrenheit.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"value":{"type":"number"},"to":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["value","to"]}`),
		},
	},
}

// deferred are the tools loaded by search, chosen by this consumer
// (seed 000: Use(Weather, func() { Deferred("get_weather") })).
var deferred = []string{"get_weather"}

// tokyoWeather is what the weather helper returns: a fixed example, not a
// live observation, and it says so to the model.
const tokyoWeather = `{"city":"Tokyo","condition":"partly cloudy","temperature_c":18,"humidity_percent":62,"wind_kph":11,"source":"fixed example, not a live observation"}`

// quickstart is the runtime with the weather toolset and the agent.
type quickstart struct {
	rt *runtime.Runtime
}

// newQuickstart registers the toolset and the agent on a runtime whose
// default model is client; the agent discovers its deferred tool with the
// given search settings.
func newQuickstart(client model.Client, search model.SearchSettings) (*quickstart, error) {
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, client))
	if err != nil {
		return nil, err
	}
	specs, err := contract.CompileToolset(weatherTools)
	if err != nil {
		return nil, err
	}
	err = rt.RegisterToolset(runtime.ToolsetRegistration{Name: weatherTools.Name, Specs: specs, Executor: runtime.ToolExecutorFunc(execute)})
	if err != nil {
		return nil, err
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name:         agentName,
		SystemPrompt: "You answer questions about the weather. Search for tools you do not see.",
		Planner:      planner.NewStandard(),
		Uses:         []runtime.ToolsetUse{{Toolset: weatherTools.Name, Deferred: deferred}},
		Policy:       runtime.RunPolicy{MaxToolCalls: 5},
		MaxTokens:    maxTokens,
		Search:       search,
	})
	if err != nil {
		return nil, err
	}
	return &quickstart{rt: rt}, nil
}

// ask runs one user turn of the session under runID and waits for it.
func (q *quickstart) ask(ctx context.Context, runID, text string) (*runtime.RunOutput, error) {
	in := runtime.RunInput{SessionID: sessionID, Messages: []model.Message{model.UserMessage(text)}}
	return q.rt.Run(ctx, agentName, in, runtime.WithRunID(runID))
}

// execute is the toolset's executor.
func execute(_ context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
	switch call.Ident.Tool() {
	case "get_weather":
		var p struct {
			City string `json:"city"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		if !strings.EqualFold(strings.TrimSpace(p.City), "Tokyo") {
			return &planner.ToolResult{Failure: &planner.ToolFailure{
				Code:     "unknown_city",
				Message:  fmt.Sprintf("This example knows only Tokyo's weather (a fixed sample), not %q's. Tell the user, or ask get_weather for Tokyo.", p.City),
				Recovery: planner.RecoveryFinish,
			}}, nil
		}
		return &planner.ToolResult{Result: json.RawMessage(tokyoWeather)}, nil
	case "convert_temperature":
		var p struct {
			Value float64 `json:"value"`
			To    string  `json:"to"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		v := p.Value*9/5 + 32
		if p.To == "celsius" {
			v = (p.Value - 32) * 5 / 9
		}
		out, err := json.Marshal(map[string]any{"value": math.Round(v*10) / 10, "unit": p.To})
		if err != nil {
			return nil, err
		}
		return &planner.ToolResult{Result: out}, nil
	}
	return nil, fmt.Errorf("the quickstart has no tool %s", call.Ident)
}
