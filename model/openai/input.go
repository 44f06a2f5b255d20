package openai

import (
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/model"
)

// buildHistory turns the system prompt and the messages into input items.
// Shapes (responses.ResponseInputItemUnionParam, openai-go v3.99.0, and
// https://developers.openai.com/api/docs/guides/conversation-state):
//   - text: {"role":"user"|"assistant"|"system","content":"…"}
//     (responses.EasyInputMessageParam);
//   - an assistant tool call without adapter metadata:
//     {"type":"function_call","call_id","name","arguments"}
//     (responses.ResponseFunctionToolCallParam);
//   - a tool result: {"type":"function_call_output","call_id","output"}
//     (responses.ResponseInputItemFunctionCallOutputParam), the output being
//     the result's JSON text. The API has no error flag on it: a failed
//     call's content says so.
//
// An assistant message with adapter metadata is replayed from it (replay).
func (inv *invocation) buildHistory() error {
	req := inv.req
	if marksSystem(req) {
		inv.history = append(inv.history, systemBreakpoint(req.System))
	} else {
		inv.instructions = req.System
	}
	for i, m := range req.Messages {
		var err error
		switch m.Role {
		case model.RoleSystem, model.RoleUser, model.RoleTool:
			err = inv.plainMessage(m, i)
		case model.RoleAssistant:
			rec, ok, rerr := recordOf(m, i)
			switch {
			case rerr != nil:
				err = rerr
			case ok:
				err = inv.replay(rec, i)
			default:
				err = inv.plainMessage(m, i)
			}
		default:
			err = fmt.Errorf("openai: message %d: unknown role %q", i, m.Role)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// plainMessage appends the items of a message without adapter metadata.
func (inv *invocation) plainMessage(m model.Message, index int) error {
	role := responses.EasyInputMessageRole(m.Role)
	for _, p := range m.Parts {
		switch p.Kind {
		case model.PartText:
			if m.Role == model.RoleTool {
				return fmt.Errorf("openai: message %d: a tool message holds tool results only, not text", index)
			}
			inv.history = append(inv.history, responses.ResponseInputItemParamOfMessage(p.Text, role))
		case model.PartToolCall:
			if m.Role != model.RoleAssistant || p.ToolCall == nil {
				return fmt.Errorf("openai: message %d: a %s message cannot hold a tool call", index, m.Role)
			}
			c := p.ToolCall
			// A message without adapter metadata holds no namespace.
			if err := inv.checkCallIdentity(index, c.ID, c.Name, ""); err != nil {
				return err
			}
			inv.history = append(inv.history, responses.ResponseInputItemParamOfFunctionCall(string(c.Payload), c.ID, c.Name))
		case model.PartToolResult:
			if p.ToolResult == nil {
				return fmt.Errorf("openai: message %d: tool result part without a result", index)
			}
			r := p.ToolResult
			item := responses.ResponseInputItemParamOfFunctionCallOutput(string(r.Content))
			item.OfFunctionCallOutput.CallID = sdk.String(r.CallID)
			inv.history = append(inv.history, item)
		default:
			return fmt.Errorf("openai: message %d: unknown part kind %q", index, p.Kind)
		}
	}
	return nil
}

// marksSystem reports whether the request's AfterSystem checkpoint is
// placed: it needs a system prompt to mark.
func marksSystem(req *model.Request) bool {
	return req.Cache.AfterSystem && req.System != ""
}

// ignoredCheckpoints lists the checkpoints of req that are not sent, for
// model.Response.IgnoredCheckpoints: AfterTools always (tool definitions
// carry no prompt_cache_breakpoint; the API caches the tools prefix
// automatically), AfterSystem when there is no system prompt to mark.
func ignoredCheckpoints(req *model.Request) []model.CacheCheckpoint {
	var out []model.CacheCheckpoint
	if req.Cache.AfterSystem && !marksSystem(req) {
		out = append(out, model.CheckpointAfterSystem)
	}
	if req.Cache.AfterTools {
		out = append(out, model.CheckpointAfterTools)
	}
	return out
}

// systemBreakpoint is the system prompt as a leading system message whose
// input_text block ends with an explicit cache breakpoint:
// {"role":"system","content":[{"type":"input_text","text":…,
// "prompt_cache_breakpoint":{"mode":"explicit"}}]} —
// responses.ResponseInputTextParam.PromptCacheBreakpoint (openai-go v3.99.0:
// "Marks the exact end of a reusable prompt prefix") and
// https://developers.openai.com/api/docs/guides/prompt-caching.
func systemBreakpoint(system string) responses.ResponseInputItemUnionParam {
	text := &responses.ResponseInputTextParam{
		Text:                  system,
		PromptCacheBreakpoint: responses.NewResponseInputTextPromptCacheBreakpointParam(),
	}
	content := responses.ResponseInputMessageContentListParam{{OfInputText: text}}
	return responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleSystem)
}
