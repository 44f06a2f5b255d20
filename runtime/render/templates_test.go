package render_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/render"
	"github.com/quiver-go/quiver/tools"
)

type searchPayload struct {
	Query string
	Tags  []string
	Limit *int
}

type searchResult struct {
	Count   int
	Results []string
}

func spec(call, result string) tools.ToolSpec {
	return tools.ToolSpec{Name: "docs.search", Title: "Search documents", CallHintTemplate: call, ResultHintTemplate: result}
}

func TestCallHint(t *testing.T) {
	tests := []struct {
		name     string
		template string
		payload  any
		override string
		want     string
	}{
		{"typed struct root", `Searching for: {{ .Query }}{{ with .Limit }} (max {{ . }}){{ end }}`, searchPayload{Query: "go templates"}, "", "Searching for: go templates"},
		{"typed pointer root", `{{ truncate .Query 6 }} in {{ join .Tags ", " }} ({{ count .Tags }})`, &searchPayload{Query: "go templates", Tags: []string{"a", "b"}}, "", "go te… in a, b (2)"},
		{"map root of JSON keys", `Searching for: {{ quote .query }}`, map[string]any{"query": "x"}, "", `Searching for: "x"`},
		{"missing key falls back to title", `{{ .nope }}`, map[string]any{"query": "x"}, "", "Search documents"},
		{"missing field falls back to title", `{{ .Nope }}`, searchPayload{}, "", "Search documents"},
		{"parse error falls back to title", `{{ .Query `, searchPayload{}, "", "Search documents"},
		{"blank rendering falls back to title", `{{ with .Limit }}{{ . }}{{ end }}`, searchPayload{}, "", "Search documents"},
		{"no template", ``, searchPayload{Query: "x"}, "", "Search documents"},
		{"nil payload", `{{ .Query }}`, nil, "", "Search documents"},
		{"nil typed pointer", `{{ .Query }}`, (*searchPayload)(nil), "", "Search documents"},
		{"raw JSON is never rendered", `{{ . }}`, json.RawMessage(`{"query":"x"}`), "", "Search documents"},
		{"override wins", `Searching for: {{ .Query }}`, searchPayload{Query: "x"}, "Looking it up", "Looking it up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render.CallHint(spec(tt.template, ""), tt.payload, tt.override); got != tt.want {
				t.Errorf("CallHint = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResultHint(t *testing.T) {
	total := 40
	bounds := &planner.Bounds{Returned: 2, Total: &total, Truncated: true}
	tests := []struct {
		name     string
		template string
		result   any
		bounds   *planner.Bounds
		explicit string
		want     string
	}{
		{"typed result and bounds", `Found {{ .Result.Count }}{{ if .Bounds.Truncated }} of {{ .Bounds.Total }}{{ end }}`, searchResult{Count: 2}, bounds, "", "Found 2 of 40"},
		{"map result", `{{ count .Result.results }} results`, map[string]any{"results": []any{"a", "b", "c"}}, nil, "", "3 results"},
		{"missing key", `{{ .Result.nope }}`, map[string]any{}, nil, "", ""},
		{"nil bounds read", `{{ .Bounds.Returned }}`, searchResult{}, nil, "", ""},
		{"no template", ``, searchResult{Count: 1}, nil, "", ""},
		{"explicit hint kept", `Found {{ .Result.Count }}`, searchResult{Count: 2}, nil, "Two hits", "Two hits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render.ResultHint(spec("", tt.template), tt.result, tt.bounds, tt.explicit); got != tt.want {
				t.Errorf("ResultHint = %q, want %q", got, tt.want)
			}
		})
	}
}

func confirmSpec(prompt, denied string) tools.ToolSpec {
	return tools.ToolSpec{Name: "kv.dangerous_write", Title: "Write a value", Confirmation: &tools.ConfirmationSpec{
		Title: "Confirm change", PromptTemplate: prompt, DeniedResultTemplate: denied,
	}}
}

func TestConfirmationPrompt(t *testing.T) {
	payload := json.RawMessage(`{"key":"mode","value":{"level":3,"big":12345678901234567890},"n":1000000}`)
	tests := []struct {
		name, template string
		payload        json.RawMessage
		want           string
		wantErr        string
	}{
		{"keys and json", `Approve write: set {{ .key }} to {{ json .value }}`, payload, `Approve write: set mode to {"big":12345678901234567890,"level":3}`, ""},
		{"numbers keep their spelling", `n={{ .n }}`, payload, `n=1000000`, ""},
		{"index for optional keys", `{{ with index . "reason" }}because {{ . }}{{ else }}no reason{{ end }}`, payload, `no reason`, ""},
		{"default prompt", ``, json.RawMessage("{ \"key\": \"mode\" }"), `Approve "Write a value" with arguments {"key":"mode"}?`, ""},
		{"missing key", `{{ .reason }}`, payload, "", `render: kv.dangerous_write: confirmation prompt template: template: confirmation prompt template:1:3: executing "confirmation prompt template" at <.reason>: map has no entry for key "reason"`},
		{"parse error", `{{ .key `, payload, "", "render: kv.dangerous_write: tools: template confirmation prompt template:"},
		{"payload not an object", `{{ .key }}`, json.RawMessage(`[1]`), "", "render: kv.dangerous_write: confirmation prompt template: payload is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := render.ConfirmationPrompt(confirmSpec(tt.template, ""), tt.payload)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ConfirmationPrompt = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// Confirmation enabled at run time, without a ConfirmationSpec.
	got, err := render.ConfirmationPrompt(tools.ToolSpec{Name: "kv.put", Title: "Put"}, nil)
	if err != nil || got != `Approve "Put" with arguments {}?` {
		t.Errorf("without spec: %q, %v", got, err)
	}
}

func TestDeniedResult(t *testing.T) {
	payload := json.RawMessage(`{"key":"mode","value":true}`)
	got, err := render.DeniedResult(confirmSpec("", `{"summary": "Cancelled", "key": {{ json .key }}}`), payload)
	if err != nil || string(got) != `{"summary":"Cancelled","key":"mode"}` {
		t.Errorf("DeniedResult = %s, %v", got, err)
	}
	got, err = render.DeniedResult(confirmSpec("", ""), payload)
	if err != nil || string(got) != render.DefaultDeniedResult || !json.Valid(got) {
		t.Errorf("default = %s, %v", got, err)
	}
	got, err = render.DeniedResult(tools.ToolSpec{Name: "kv.put"}, payload)
	if err != nil || string(got) != `{"denied":true,"summary":"The user denied this call."}` {
		t.Errorf("without spec = %s, %v", got, err)
	}
	_, err = render.DeniedResult(confirmSpec("", `{"summary":"Cancelled {{ .key }}}`), payload)
	if err == nil || !strings.HasPrefix(err.Error(), "render: kv.dangerous_write: confirmation denied result template rendered invalid JSON") {
		t.Errorf("invalid JSON error = %v", err)
	}
	_, err = render.DeniedResult(confirmSpec("", `{"k":{{ json .missing }}}`), payload)
	if err == nil || !strings.Contains(err.Error(), `confirmation denied result template`) || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("missing key error = %v", err)
	}
}
