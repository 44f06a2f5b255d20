package bedrock

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/quiver-go/quiver/model"
)

// ErrStopped is wrapped by the error of an invocation Bedrock stopped
// without an answer to use: a guardrail intervened, content was filtered,
// or the model's output (or its tool use) was malformed.
var ErrStopped = errors.New("bedrock: stopped without a usable answer")

// toResponse maps a Converse output onto a response: one assistant message
// with the text and tool-call parts in order, the calls, usage and the
// stop reason.
//
// Wire shape (bedrockruntime ConverseOutput):
//
//	{"output":{"message":{"role":"assistant","content":[{"text":"..."},
//	  {"toolUse":{"toolUseId":"...","name":"...","input":{...}}}]}},
//	 "stopReason":"tool_use",
//	 "usage":{"inputTokens":N,"outputTokens":N,"cacheReadInputTokens":N,
//	  "cacheWriteInputTokens":N}}
//
// Content blocks other than text and toolUse (reasoning, citations) are
// not kept.
func toResponse(out *bedrockruntime.ConverseOutput) (*model.Response, error) {
	stop, err := stopReason(out.StopReason)
	if err != nil {
		return nil, err
	}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return nil, fmt.Errorf("bedrock: the Converse output holds no message (%T): the model answered nothing this adapter can read", out.Output)
	}
	resp := &model.Response{StopReason: stop, Usage: usage(out.Usage)}
	m := model.Message{Role: model.RoleAssistant, Parts: []model.Part{}}
	for _, b := range msg.Value.Content {
		switch b := b.(type) {
		case *types.ContentBlockMemberText:
			m.Parts = append(m.Parts, model.Text(b.Value))
		case *types.ContentBlockMemberToolUse:
			payload, err := fromDocument(b.Value.Input)
			if err != nil {
				return nil, fmt.Errorf("bedrock: tool call %q: %w", aws.ToString(b.Value.ToolUseId), err)
			}
			call := model.ToolCall{ID: aws.ToString(b.Value.ToolUseId), Name: aws.ToString(b.Value.Name), Payload: payload}
			if call.ID == "" || call.Name == "" {
				return nil, fmt.Errorf("bedrock: the model made a tool call without an id or a name (id %q, name %q)", call.ID, call.Name)
			}
			c := call
			m.Parts = append(m.Parts, model.Part{Kind: model.PartToolCall, ToolCall: &c})
			resp.ToolCalls = append(resp.ToolCalls, call)
		}
	}
	resp.Messages = []model.Message{m}
	return resp, nil
}

// stopReason maps Converse's stopReason; the stops without a usable answer
// are errors wrapping ErrStopped.
func stopReason(r types.StopReason) (model.StopReason, error) {
	switch r {
	case types.StopReasonEndTurn, types.StopReasonStopSequence, "":
		return model.StopEndTurn, nil
	case types.StopReasonToolUse:
		return model.StopToolUse, nil
	case types.StopReasonMaxTokens, types.StopReasonModelContextWindowExceeded:
		return model.StopMaxTokens, nil
	case types.StopReasonGuardrailIntervened, types.StopReasonContentFiltered:
		return "", fmt.Errorf("%w: stop reason %q: the input or output was blocked; rephrase the request or review the guardrail", ErrStopped, r)
	case types.StopReasonMalformedModelOutput, types.StopReasonMalformedToolUse:
		return "", fmt.Errorf("%w: stop reason %q: the model's output could not be parsed; retry, or simplify the tool schemas", ErrStopped, r)
	}
	return "", fmt.Errorf("%w: unknown stop reason %q", ErrStopped, r)
}

// usage maps Converse's token counts.
func usage(u *types.TokenUsage) model.Usage {
	if u == nil {
		return model.Usage{}
	}
	return model.Usage{
		InputTokens:      int(aws.ToInt32(u.InputTokens)),
		OutputTokens:     int(aws.ToInt32(u.OutputTokens)),
		CacheReadTokens:  int(aws.ToInt32(u.CacheReadInputTokens)),
		CacheWriteTokens: int(aws.ToInt32(u.CacheWriteInputTokens)),
	}
}
