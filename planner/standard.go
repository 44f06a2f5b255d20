package planner

import (
	"context"
	"fmt"

	"github.com/quiver-go/quiver/model"
)

// Standard is the model-driven planner: each step sends the prepared
// messages and the advertised tools to the agent's model and turns the
// response into a plan — tool calls when the model called tools, a final
// response otherwise. It always streams the request ([model.Client.Stream])
// and hands each piece to the run ([Context.StreamChunk]) as it arrives;
// the plan is made of the complete response only, so a stream that breaks
// off plans nothing.
type Standard struct{}

// NewStandard returns the standard planner.
func NewStandard() *Standard { return &Standard{} }

// PlanStart implements Planner.
func (p *Standard) PlanStart(ctx context.Context, in *PlanInput) (*PlanResult, error) {
	return p.step(ctx, in.Agent)
}

// PlanResume implements Planner. The tool results are already in the
// prepared messages.
func (p *Standard) PlanResume(ctx context.Context, in *PlanResumeInput) (*PlanResult, error) {
	return p.step(ctx, in.Agent)
}

func (p *Standard) step(ctx context.Context, agent Context) (*PlanResult, error) {
	opts := agent.RequestOptions()
	client, err := agent.Model(opts.Class)
	if err != nil {
		return nil, err
	}
	msgs, err := agent.PrepareMessages(ctx)
	if err != nil {
		return nil, err
	}
	req := &model.Request{
		Model:     opts.ModelID,
		Class:     opts.Class,
		System:    agent.SystemPrompt(),
		Messages:  msgs,
		Tools:     agent.AdvertisedToolDefinitions(),
		MaxTokens: opts.MaxTokens,
		Cache:     opts.Cache,
		Search:    agent.SearchSettings(),
		Discovery: opts.Discovery,
	}
	if opts.Finalize && len(req.Tools) == 0 {
		req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceNone}
	}
	stream, err := client.Stream(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("planner: model: %w", err)
	}
	resp, err := model.Collect(stream, func(c model.Chunk) error {
		agent.StreamChunk(c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("planner: model: %w", err)
	}
	res := &PlanResult{Messages: resp.Messages, Usage: resp.Usage}
	if len(resp.ToolCalls) == 0 {
		res.FinalResponse = &FinalResponse{Text: resp.Text()}
		return res, nil
	}
	for _, c := range resp.ToolCalls {
		res.ToolCalls = append(res.ToolCalls, ToolRequest{CallID: c.ID, Name: c.Name, Ident: c.Ident, Payload: c.Payload})
	}
	return res, nil
}
