// Package planner is the contract between the runtime and whatever decides
// an agent's next step: the Planner interface (PlanStart, PlanResume), its
// inputs (the planner context with the advertised tools and prepared
// messages) and its results (tool calls, a final response, a final tool
// result, or an await), tool results with bounds and failures with a
// recovery action (aliases of package toolcall's, which owns one tool
// call), and reminders. Standard is the planner that drives a
// model.Client.
//
// Planners see only ordinary tool calls: tool search happens inside model
// adapters. The runtime appends PlanResult.Messages to the transcript
// before admitting any call, so admission sees what the adapter discovered
// in the same step.
package planner
