package providerfake_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// decodeEvents decodes every event as the SDK decodes a stream's events,
// checking that each is named by its type and numbered in order.
func decodeEvents(t *testing.T, events []providerfake.Event) []responses.ResponseStreamEventUnion {
	t.Helper()
	out := make([]responses.ResponseStreamEventUnion, len(events))
	for i, e := range events {
		if err := json.Unmarshal([]byte(e.Data), &out[i]); err != nil {
			t.Fatalf("event %d (%s) does not decode: %v\n%s", i, e.Name, err, e.Data)
		}
		if out[i].Type != e.Name {
			t.Errorf("event %d is named %q and has type %q", i, e.Name, out[i].Type)
		}
		if out[i].SequenceNumber != int64(i) || !out[i].JSON.SequenceNumber.Valid() {
			t.Errorf("event %d has sequence_number %d", i, out[i].SequenceNumber)
		}
	}
	return out
}

func TestOpenAIStreamEventsAreTheSDKsEvents(t *testing.T) {
	body := providerfake.OpenAIResponse("resp_1", providerfake.Usage{Input: 20, CacheRead: 5, Output: 7},
		`{"type":"reasoning","id":"rs_1","summary":[]}`,
		providerfake.OpenAIMessage("msg_1", "Exporting <now> & é."),
		providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`),
		providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "billing"),
	)
	events := decodeEvents(t, providerfake.OpenAIStreamEvents(body))
	var types []string
	var text, args string
	for _, e := range events {
		types = append(types, e.Type)
		switch e.Type {
		case "response.output_text.delta":
			ev := e.AsResponseOutputTextDelta()
			if ev.ItemID != "msg_1" || ev.OutputIndex != 1 || ev.ContentIndex != 0 {
				t.Errorf("text delta at %s/%d/%d", ev.ItemID, ev.OutputIndex, ev.ContentIndex)
			}
			text += ev.Delta
		case "response.output_text.done":
			if got := e.AsResponseOutputTextDone().Text; got != "Exporting <now> & é." {
				t.Errorf("output_text.done text %q", got)
			}
		case "response.function_call_arguments.delta":
			ev := e.AsResponseFunctionCallArgumentsDelta()
			if ev.ItemID != "fc_1" || ev.OutputIndex != 2 {
				t.Errorf("arguments delta at %s/%d", ev.ItemID, ev.OutputIndex)
			}
			args += ev.Delta
		case "response.function_call_arguments.done":
			if got := e.AsResponseFunctionCallArgumentsDone().Arguments; got != `{"format":"csv"}` {
				t.Errorf("arguments.done %q", got)
			}
		case "response.output_item.added":
			ev := e.AsResponseOutputItemAdded()
			if ev.Item.Type != "reasoning" && ev.Item.Status != "in_progress" {
				t.Errorf("item %s added with status %q", ev.Item.ID, ev.Item.Status)
			}
			if ev.Item.Type == "function_call" {
				fc := ev.Item.AsFunctionCall()
				if fc.CallID != "call_1" || fc.Name != "start_export" || fc.Arguments != "" {
					t.Errorf("function call added as %+v", fc)
				}
			}
		case "response.output_item.done":
			ev := e.AsResponseOutputItemDone()
			if ev.Item.Type == "function_call" && ev.Item.AsFunctionCall().Arguments != `{"format":"csv"}` {
				t.Errorf("function call done as %s", ev.Item.RawJSON())
			}
		case "response.created":
			r := e.AsResponseCreated().Response
			if r.ID != "resp_1" || r.Status != "in_progress" || len(r.Output) != 0 {
				t.Errorf("created response %s", r.RawJSON())
			}
		case "response.completed":
			r := e.AsResponseCompleted().Response
			if r.Status != "completed" || len(r.Output) != 4 || r.Usage.OutputTokens != 7 || r.Usage.InputTokensDetails.CachedTokens != 5 {
				t.Errorf("completed response %s", r.RawJSON())
			}
			if got := r.Output[1].RawJSON(); got != providerfake.OpenAIMessage("msg_1", "Exporting <now> & é.") {
				t.Errorf("the final response changed an item: %s", got)
			}
		}
	}
	want := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.output_item.done",
		"response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.output_item.added", "response.output_item.done",
		"response.completed"}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("event types:\n got %q\nwant %q", types, want)
	}
	if text != "Exporting <now> & é." || args != `{"format":"csv"}` {
		t.Errorf("deltas join to %q and %q", text, args)
	}
}

func TestOpenAIStreamEndsAsTheResponseDid(t *testing.T) {
	u := providerfake.Usage{Input: 1, Output: 1}
	for body, final := range map[string]string{
		providerfake.OpenAIIncompleteResponse("resp_1", u, providerfake.OpenAIMessage("msg_1", "Part")): "response.incomplete",
		strings.Replace(providerfake.OpenAIResponse("resp_2", u), `"status":"completed","model":"gpt-5.4","error":null`,
			`"status":"failed","model":"gpt-5.4","error":{"code":"server_error","message":"boom"}`, 1): "response.failed",
	} {
		events := decodeEvents(t, providerfake.OpenAIStreamEvents(body))
		last := events[len(events)-1]
		if last.Type != final {
			t.Errorf("last event %s, want %s", last.Type, final)
		}
		if final == "response.failed" && last.AsResponseFailed().Response.Error.Code != "server_error" {
			t.Errorf("failed response %s", last.Response.RawJSON())
		}
	}
	e := decodeEvents(t, []providerfake.Event{providerfake.OpenAIStreamError(0, "server_error", "boom")})[0].AsError()
	if e.Code != "server_error" || e.Message != "boom" {
		t.Errorf("error event %+v", e)
	}
}

func TestAStreamingRequestGetsTheStreamOfItsScriptedResponse(t *testing.T) {
	body := providerfake.OpenAIResponse("resp_1", providerfake.Usage{}, providerfake.OpenAIMessage("msg_1", "Hi there"))
	s := providerfake.New(t, "/responses", providerfake.OK(body), providerfake.OK(body))
	resp, err := http.Post(s.URL()+"/responses", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	var names []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, name)
		}
	}
	want := providerfake.OpenAIStreamEvents(body)
	if len(names) != len(want) || names[len(names)-1] != "response.completed" {
		t.Errorf("streamed events %q, want the %d of OpenAIStreamEvents", names, len(want))
	}
	// A request that does not ask for a stream gets the object.
	if _, got := post(t, s.URL()+"/responses", `{}`); got != body {
		t.Errorf("whole answer %s", got)
	}
}
