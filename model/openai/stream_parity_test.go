package openai

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

// parityScripts are provider answers for which Stream must return what
// Complete returns, each with the request it answers.
var parityScripts = []struct {
	name    string
	req     func() *model.Request
	answers []string
}{
	{"search then call", baseRequest, []string{
		response("resp_1", "completed", 40, reasoningItem("rs_1"), providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv")),
		response("resp_2", "completed", 30, providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`)),
	}},
	{"two searches, text and two calls", baseRequest, []string{
		response("resp_1", "completed", 40, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv")),
		response("resp_2", "completed", 40, providerfake.OpenAIToolSearchCall("tsc_2", "call_search_2", "trends statistics")),
		response("resp_3", "completed", 20, providerfake.OpenAIMessage("msg_1", "Exporting, then analyzing."),
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`),
			providerfake.OpenAIFunctionCall("fc_2", "call_2", "analyze", "analyze", `{}`)),
	}},
	{"no match and no query", baseRequest, []string{
		response("resp_1", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "zebra giraffe")),
		response("resp_2", "completed", 10, `{"type":"tool_search_call","id":"tsc_2","call_id":"call_search_2","execution":"client","status":"completed","arguments":{}}`),
		response("resp_3", "completed", 10, providerfake.OpenAIMessage("msg_1", "Nothing fits.")),
	}},
	{"search and call at once", baseRequest, []string{
		response("resp_1", "completed", 30, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"),
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "lookup", "", `{"id":"r1"}`)),
	}},
	{"output budget spent", baseRequest, []string{
		response("resp_1", "completed", 990, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv")),
	}},
	{"truncated by the provider", baseRequest, []string{
		response("resp_1", "incomplete", 1000, providerfake.OpenAIMessage("msg_1", "Partial")),
	}},
	{"forced deferred tool, checkpoints ignored", func() *model.Request {
		req := baseRequest()
		req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "send_invoice"}
		req.Cache.AfterTools = true
		return req
	}, []string{
		response("resp_1", "completed", 9, providerfake.OpenAIFunctionCall("fc_1", "call_1", "send_invoice", "", `{"customer":"c1"}`)),
	}},
	{"refusal and arguments that are not JSON", baseRequest, []string{
		response("resp_1", "completed", 9,
			`{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"refusal","refusal":"I cannot export that."}]}`,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "lookup", "", `{"id": r1`)),
	}},
}

func TestStreamReturnsWhatCompleteReturns(t *testing.T) {
	for _, sc := range parityScripts {
		t.Run(sc.name, func(t *testing.T) {
			exchanges := make([]exchange, len(sc.answers))
			answers := make([]providerfake.Answer, len(sc.answers))
			for i, a := range sc.answers {
				exchanges[i] = exchange{body: a}
				answers[i] = providerfake.OK(a)
			}
			wp, whole := newProvider(t, exchanges...)
			want, err := whole.Complete(context.Background(), sc.req())
			if err != nil {
				t.Fatal(err)
			}
			sp, c := newStreamProvider(t, answers...)
			chunks, resp, err := streamAll(t, c, sc.req())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(resp, want) {
				got, _ := json.Marshal(resp)
				w, _ := json.Marshal(want)
				t.Errorf("streamed response differs from Complete's:\n got: %s\nwant: %s", got, w)
			}
			checkChunks(t, chunks, resp)
			// The same requests, asking for a stream.
			for i := range sc.answers {
				if got, w := wholeBody(t, sp.Request(i).Body, true), wp.Request(i).Body; !sameJSON(got, w) {
					t.Errorf("request %d differs from Complete's:\n got: %s\nwant: %s", i+1, got, w)
				}
			}
		})
	}
}

func TestBedrockStreams(t *testing.T) {
	_, c := newBedrock(t, 0,
		exchange{golden: "search_then_call_1", streamed: true, body: response("resp_1", "completed", 40,
			reasoningItem("rs_1"), providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
		exchange{golden: "search_then_call_2", streamed: true, body: response("resp_2", "completed", 30,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`))},
	)
	chunks, resp, err := streamAll(t, c, baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "chunks", kinds(chunks), []model.ChunkKind{
		model.ChunkUsage, model.ChunkSearch, model.ChunkToolCallDelta, model.ChunkToolCall, model.ChunkUsage})
	checkChunks(t, chunks, resp)
	equal(t, "tool calls", resp.ToolCalls, []model.ToolCall{{ID: "call_1", Name: "start_export", Payload: json.RawMessage(`{"format":"csv"}`)}})
}

func TestStreamCompletesArgumentsTheDeltasLeftOut(t *testing.T) {
	const args = `{"id":"r1"}`
	answer := response("resp_1", "completed", 9, providerfake.OpenAIFunctionCall("fc_1", "call_1", "lookup", "", args))
	without := func(drop ...string) []providerfake.Event {
		var out []providerfake.Event
		for _, e := range providerfake.OpenAIStreamEvents(answer) {
			if !slices.Contains(drop, e.Name) {
				out = append(out, e)
			}
		}
		return out
	}
	for name, events := range map[string][]providerfake.Event{
		// The arguments arrive only with the finished item.
		"no arguments deltas": without("response.function_call_arguments.delta"),
		// Nor was the call announced when its item started.
		"no item added": without("response.function_call_arguments.delta", "response.output_item.added"),
	} {
		t.Run(name, func(t *testing.T) {
			_, c := newStreamProvider(t, providerfake.Stream(events...))
			chunks, resp, err := streamAll(t, c, baseRequest())
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, chunks, resp)
			equal(t, "chunks", kinds(chunks), []model.ChunkKind{model.ChunkToolCallDelta, model.ChunkToolCall, model.ChunkUsage})
			equal(t, "call", resp.ToolCalls, []model.ToolCall{{ID: "call_1", Name: "lookup", Payload: json.RawMessage(args)}})
		})
	}
}
