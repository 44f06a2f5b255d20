package main

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// The scripted provider conversation, the same on every provider: the
// user asks for Tokyo's weather; the model searches, the search loads
// get_weather, the model calls it, reads the result and answers. In a
// second turn of the same session the model calls get_weather again,
// without searching: the first turn's history, replayed, keeps it
// callable.
const (
	answer1   = "Tokyo is partly cloudy at 18 °C."
	question2 = "Should I take an umbrella?"
	answer2   = "No umbrella needed: it is partly cloudy, not raining."
)

// The usage each answer reports (the golden transcripts print its sums);
// the compatible server reads nothing from a cache.
var (
	usage       = providerfake.Usage{Input: 300, CacheRead: 100, Output: 20}
	compatUsage = providerfake.Usage{Input: 300, Output: 20}
)

// providerCase is one provider's side of the conversation.
type providerCase struct {
	provider string
	model    string
	// path is the API path the adapter posts to; base turns the fake's
	// URL into the -base-url value.
	path string
	base func(url string) string
	// answers are the provider's answers, in order; the first turn takes
	// the first turn1.
	answers []string
	turn1   int
	// check asserts the request bodies the fake received.
	check func(t *testing.T, reqs []map[string]any)
}

// TestProviderConversations runs the quickstart agent built exactly as
// `-provider X -model M -base-url URL` builds it, with the key read from
// the environment, against a local fake of each provider: search,
// execution and replay, through the provider's own wire format.
func TestProviderConversations(t *testing.T) {
	for _, tc := range []providerCase{openAICase(), anthropicCase(), compatCase()} {
		t.Run(tc.provider, func(t *testing.T) {
			p := newFakeProvider(t, tc.path, tc.answers...)
			env := map[string]string{openAIKeyVar: testKey, anthropicKeyVar: testKey, compatKeyVar: testKey}
			m, err := newModel(providerConfig{provider: tc.provider, model: tc.model, baseURL: tc.base(p.URL())}, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			q, err := newQuickstart(m.client, m.search)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			var printed bytes.Buffer
			for i, turn := range []struct{ question, answer string }{{question, answer1}, {question2, answer2}} {
				fmt.Fprintf(&printed, "— turn %d\n", i+1)
				stop := (&streamPrinter{w: &printed}).follow(q.rt)
				out, err := q.ask(ctx, fmt.Sprintf("tool-search-%d", i+1), turn.question)
				stop()
				if err != nil {
					t.Fatalf("turn %d: %v", i+1, err)
				}
				if out.Final == nil || out.Final.Text != turn.answer {
					t.Fatalf("turn %d ended %s with %+v, want the answer %q", i+1, out.Reason, out.Final, turn.answer)
				}
				printConversation(&printed, out.Messages)
				printOutcome(&printed, out, true)
			}
			n := len(p.Requests())
			if n != len(tc.answers) {
				t.Fatalf("the provider got %d requests, want %d", n, len(tc.answers))
			}
			reqs := make([]map[string]any, n)
			for i := range reqs {
				reqs[i] = p.Body(i)
			}
			tc.check(t, reqs)
			checkGolden(t, tc.provider+".golden", printed.Bytes())
		})
	}
}

// TestRunWithAProvider runs the program itself with -provider, -model and
// -base-url against each fake: it exits 0 and prints the setup, the
// discovery, the call and the answer, then the tokens billed.
func TestRunWithAProvider(t *testing.T) {
	for _, tc := range []providerCase{openAICase(), anthropicCase(), compatCase()} {
		t.Run(tc.provider, func(t *testing.T) {
			p := newFakeProvider(t, tc.path, tc.answers[:tc.turn1]...)
			env := map[string]string{openAIKeyVar: testKey, anthropicKeyVar: testKey, compatKeyVar: testKey}
			args := []string{"-provider", tc.provider, "-model", tc.model, "-base-url", tc.base(p.URL())}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, func(k string) string { return env[k] }, &stdout, &stderr); code != exitOK {
				t.Fatalf("exit %d, stderr: %s", code, stderr.String())
			}
			for _, want := range []string{"model:  " + tc.provider + " " + tc.model, "discovered weather.get_weather", "calls get_weather", answer1, "usage: "} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("the output lacks %q:\n%s", want, stdout.String())
				}
			}
		})
	}
}

// openAICase: a client-executed tool_search the adapter answers with a
// tool_search_output loading get_weather in its namespace.
func openAICase() providerCase {
	return providerCase{
		provider: "openai", model: "gpt-5.4", path: "/responses",
		base: func(url string) string { return url }, turn1: 3,
		answers: []string{
			providerfake.OpenAIResponse("resp_1", usage, providerfake.OpenAIToolSearchCall("tsc_1", "call_s1", "weather in a city")),
			providerfake.OpenAIResponse("resp_2", usage, providerfake.OpenAIFunctionCall("fc_1", "call_w1", "get_weather", "get_weather", `{"city":"Tokyo"}`)),
			providerfake.OpenAIResponse("resp_3", usage, providerfake.OpenAIMessage("msg_1", answer1)),
			providerfake.OpenAIResponse("resp_4", usage, providerfake.OpenAIFunctionCall("fc_2", "call_w2", "get_weather", "get_weather", `{"city":"Tokyo"}`)),
			providerfake.OpenAIResponse("resp_5", usage, providerfake.OpenAIMessage("msg_2", answer2)),
		},
		check: func(t *testing.T, reqs []map[string]any) {
			// The deferred catalog stays in the application: the first
			// request has the inline function and tool_search only.
			equal(t, "request 1 tools", openAITools(reqs[0]), []string{"function:convert_temperature", "tool_search"})
			// The search is answered within the invocation: get_weather
			// loaded, in its namespace.
			equal(t, "request 2 input", openAIInput(reqs[1]), []string{"message:user", "tool_search_call", "tool_search_output"})
			equal(t, "request 2 search answers", openAISearchOutputs(reqs[1]), [][]string{{"get_weather"}})
			// The call's result goes back to the model.
			mustContain(t, "request 3 call result", openAIOutput(reqs[2], "call_w1"), `"city":"Tokyo"`)
			// Turn 2 replays turn 1 item by item; the replayed search
			// output still loads get_weather, so no new search is needed
			// and the tool is not advertised a second time.
			equal(t, "request 4 input", openAIInput(reqs[3]), []string{"message:user", "tool_search_call", "tool_search_output", "function_call", "function_call_output", "message:assistant", "message:user"})
			equal(t, "request 4 search answers", openAISearchOutputs(reqs[3]), [][]string{{"get_weather"}})
			equal(t, "request 4 tools", openAITools(reqs[3]), []string{"function:convert_temperature", "tool_search"})
			mustContain(t, "request 5 call result", openAIOutput(reqs[4], "call_w2"), `"city":"Tokyo"`)
		},
	}
}

// anthropicCase: Anthropic's hosted BM25 search over get_weather sent with
// defer_loading; the provider searches and loads within one response.
func anthropicCase() providerCase {
	return providerCase{
		provider: "anthropic", model: "claude-sonnet-4-5", path: "/v1/messages",
		base: func(url string) string { return url }, turn1: 2,
		answers: []string{
			providerfake.AnthropicMessage("msg_1", "tool_use", usage, providerfake.AnthropicText("Let me find a weather tool."),
				providerfake.AnthropicHostedSearch("srvtoolu_1", "weather in a city", "get_weather"),
				providerfake.AnthropicToolUse("toolu_w1", "get_weather", `{"city":"Tokyo"}`)),
			providerfake.AnthropicMessage("msg_2", "end_turn", usage, providerfake.AnthropicText(answer1)),
			providerfake.AnthropicMessage("msg_3", "tool_use", usage, providerfake.AnthropicToolUse("toolu_w2", "get_weather", `{"city":"Tokyo"}`)),
			providerfake.AnthropicMessage("msg_4", "end_turn", usage, providerfake.AnthropicText(answer2)),
		},
		check: func(t *testing.T, reqs []map[string]any) {
			// Every request: the inline tool, get_weather deferred, the
			// hosted search tool — turn 2's too, where the replayed
			// tool_reference is what loads get_weather.
			for i, r := range reqs {
				equal(t, fmt.Sprintf("request %d tools", i+1), anthropicTools(r), []string{"convert_temperature", "get_weather (defer_loading)", "tool_search_tool_bm25"})
			}
			// The search blocks come back in place, then the call result.
			equal(t, "request 2 messages", anthropicMessages(reqs[1]), []string{"user:text", "assistant:text,server_tool_use,tool_search_tool_result,tool_use", "user:tool_result"})
			mustContain(t, "request 2 call result", anthropicResult(reqs[1], "toolu_w1"), `"city":"Tokyo"`)
			// Turn 2 replays turn 1 whole; no search in its answer.
			equal(t, "request 3 messages", anthropicMessages(reqs[2]), []string{"user:text", "assistant:text,server_tool_use,tool_search_tool_result,tool_use", "user:tool_result", "assistant:text", "user:text"})
			mustContain(t, "request 4 call result", anthropicResult(reqs[3], "toolu_w2"), `"city":"Tokyo"`)
		},
	}
}

// compatCase: portable search over an OpenAI-compatible server: the model
// calls search_tools, which Quiver answers; get_weather joins the tools of
// the next request.
func compatCase() providerCase {
	return providerCase{
		provider: "compat", model: "qwen3:8b", path: "/v1/chat/completions",
		base: func(url string) string { return url + "/v1" }, turn1: 3,
		answers: []string{
			providerfake.ChatToolCall("call_s1", "search_tools", `{"query":"weather in a city"}`, compatUsage),
			providerfake.ChatToolCall("call_w1", "get_weather", `{"city":"Tokyo"}`, compatUsage),
			providerfake.ChatReply(answer1, compatUsage),
			providerfake.ChatToolCall("call_w2", "get_weather", `{"city":"Tokyo"}`, compatUsage),
			providerfake.ChatReply(answer2, compatUsage),
		},
		check: func(t *testing.T, reqs []map[string]any) {
			equal(t, "request 1 tools", chatTools(reqs[0]), []string{"convert_temperature", "search_tools"})
			// The search is answered and loads get_weather for the very
			// next request.
			equal(t, "request 2 messages", chatMessages(reqs[1]), []string{"system", "user", "assistant calls search_tools", "tool call_s1"})
			mustContain(t, "request 2 search answer", chatToolContent(reqs[1], "call_s1"), `"name":"get_weather"`)
			equal(t, "request 2 tools", chatTools(reqs[1]), []string{"convert_temperature", "get_weather", "search_tools"})
			mustContain(t, "request 3 call result", chatToolContent(reqs[2], "call_w1"), `"city":"Tokyo"`)
			// Turn 2 replays turn 1; the discovery record keeps
			// get_weather among the tools without a new search.
			equal(t, "request 4 messages", chatMessages(reqs[3]), []string{"system", "user", "assistant calls search_tools", "tool call_s1", "assistant calls get_weather", "tool call_w1", "assistant", "user"})
			equal(t, "request 4 tools", chatTools(reqs[3]), []string{"convert_temperature", "get_weather", "search_tools"})
			mustContain(t, "request 5 call result", chatToolContent(reqs[4], "call_w2"), `"city":"Tokyo"`)
		},
	}
}

// Readers of the request bodies.

func list(v any) []any            { l, _ := v.([]any); return l }
func object(v any) map[string]any { m, _ := v.(map[string]any); return m }
func text(v any) string           { s, _ := v.(string); return s }

// openAITools lists a Responses request's tools: "function:<name>" or the
// tool's type.
func openAITools(body map[string]any) []string {
	var out []string
	for _, t := range list(body["tools"]) {
		m := object(t)
		if m["type"] == "function" {
			out = append(out, "function:"+text(m["name"]))
		} else {
			out = append(out, text(m["type"]))
		}
	}
	return out
}

// openAIInput lists a Responses request's input items by type, messages
// as "message:<role>".
func openAIInput(body map[string]any) []string {
	var out []string
	for _, it := range list(body["input"]) {
		m := object(it)
		ty := text(m["type"])
		if ty == "" || ty == "message" {
			ty = "message:" + text(m["role"])
		}
		out = append(out, ty)
	}
	return out
}

// openAISearchOutputs lists, per tool_search_output item, the names of the
// namespaces it loads.
func openAISearchOutputs(body map[string]any) [][]string {
	var out [][]string
	for _, it := range list(body["input"]) {
		if m := object(it); m["type"] == "tool_search_output" {
			names := []string{}
			for _, ns := range list(m["tools"]) {
				names = append(names, text(object(ns)["name"]))
			}
			out = append(out, names)
		}
	}
	return out
}

// openAIOutput returns the output of the function_call_output answering
// callID.
func openAIOutput(body map[string]any, callID string) string {
	for _, it := range list(body["input"]) {
		if m := object(it); m["type"] == "function_call_output" && m["call_id"] == callID {
			return text(m["output"])
		}
	}
	return ""
}

// anthropicTools lists a Messages request's tools by name, marking those
// sent with defer_loading.
func anthropicTools(body map[string]any) []string {
	var out []string
	for _, t := range list(body["tools"]) {
		m := object(t)
		name := text(m["name"])
		if m["defer_loading"] == true {
			name += " (defer_loading)"
		}
		out = append(out, name)
	}
	return out
}

// anthropicMessages lists a Messages request's messages as
// "<role>:<block type>,…".
func anthropicMessages(body map[string]any) []string {
	var out []string
	for _, msg := range list(body["messages"]) {
		m := object(msg)
		var types []string
		for _, b := range list(m["content"]) {
			types = append(types, text(object(b)["type"]))
		}
		out = append(out, text(m["role"])+":"+strings.Join(types, ","))
	}
	return out
}

// anthropicResult returns the text of the tool_result answering id.
func anthropicResult(body map[string]any, id string) string {
	for _, msg := range list(body["messages"]) {
		for _, b := range list(object(msg)["content"]) {
			if r := object(b); r["type"] == "tool_result" && r["tool_use_id"] == id {
				var s strings.Builder
				for _, c := range list(r["content"]) {
					s.WriteString(text(object(c)["text"]))
				}
				return s.String()
			}
		}
	}
	return ""
}

// chatTools lists a Chat Completions request's function names, sorted as
// sent.
func chatTools(body map[string]any) []string {
	var out []string
	for _, t := range list(body["tools"]) {
		out = append(out, text(object(object(t)["function"])["name"]))
	}
	return out
}

// chatMessages lists a Chat Completions request's messages: the role, the
// functions an assistant message calls, the call a tool message answers.
func chatMessages(body map[string]any) []string {
	var out []string
	for _, msg := range list(body["messages"]) {
		m := object(msg)
		s := text(m["role"])
		for _, c := range list(m["tool_calls"]) {
			s += " calls " + text(object(object(c)["function"])["name"])
		}
		if id := text(m["tool_call_id"]); id != "" {
			s += " " + id
		}
		out = append(out, s)
	}
	return out
}

// chatToolContent returns the content of the tool message answering id.
func chatToolContent(body map[string]any, id string) string {
	for _, msg := range list(body["messages"]) {
		if m := object(msg); m["role"] == "tool" && m["tool_call_id"] == id {
			return text(m["content"])
		}
	}
	return ""
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func mustContain(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%s = %q, want it to contain %s", what, got, want)
	}
}
