// Package design is the Goa design of the agents example: a weather
// service's forecaster agent reads its stations and exports a forecast
// toolset, and a travel service's trip planner uses that toolset through
// AgentToolset — every call of the forecast tool runs the forecaster as a
// child run of the planner's (agent-as-tool).
package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

var _ = API("agents", func() {
	Title("Agents as tools")
	Description("A trip planner that asks a forecaster agent, run as a tool.")
	Version("1.0")
})

var _ = Service("weather", func() {
	Description("Weather forecasts.")
	// The forecaster is the specialist: it reads the stations and answers
	// the forecast tool's calls.
	Agent("forecaster", "Forecasts the weather of a city from its stations' readings.", func() {
		Use("stations", func() {
			Tool("reading", "Read the latest measurements of a city's weather station", func() {
				Args(func() {
					Attribute("city", String, "The city, e.g. Lisbon.")
					Required("city")
				})
				Return(func() {
					Attribute("city", String, "The city.")
					Attribute("celsius", Int, "Air temperature in degrees Celsius.")
					Attribute("rain_mm", Int, "Rain over the last hour, in millimetres.")
					Required("city", "celsius", "rain_mm")
				})
			})
		})
		Export("forecast", func() {
			Description("Weather forecasts by the forecaster agent.")
			Tool("forecast", "Forecast tomorrow's weather in a city", func() {
				Args(func() {
					Attribute("city", String, "The city, e.g. Lisbon.")
					Attribute("day", String, "The day, e.g. tomorrow.")
					Required("city")
				})
				Return(func() {
					Attribute("city", String, "The city.")
					Attribute("summary", String, "The forecast in one sentence.")
					Required("city", "summary")
				})
			})
		})
		RunPolicy(func() {
			DefaultCaps(MaxToolCalls(4))
		})
	})
})

var _ = Service("travel", func() {
	Description("Trip planning.")
	// The planner is the orchestrator: it asks the forecaster, run as the
	// forecast tool, before it answers.
	Agent("planner", "Plans trips, checking the weather with the forecaster.", func() {
		Use(AgentToolset("weather", "forecaster", "forecast"))
		RunPolicy(func() {
			DefaultCaps(MaxToolCalls(4))
		})
	})
})
