package tools

import (
	"strings"
	"testing"
)

func TestTemplateFuncs(t *testing.T) {
	data := map[string]any{
		"key":   "k<1>",
		"value": map[string]any{"a": []any{1, "x"}},
		"tags":  []string{"a", "b"},
		"items": []int{1, 2, 3},
		"text":  "héllo world",
	}
	cases := []struct{ rule, tmpl, want string }{
		{"json encodes without HTML escaping", `{{ json .value }} {{ json .key }}`, `{"a":[1,"x"]} "k<1>"`},
		{"quote uses Go quoting", `{{ quote .key }}`, `"k<1>"`},
		{"join joins slices", `{{ join .tags ", " }}`, `a, b`},
		{"count counts slices, maps and strings", `{{ count .items }} {{ count .value }} {{ count .tags }}`, `3 1 2`},
		{"truncate cuts runes and marks the cut", `{{ truncate .text 4 }}|{{ truncate .text 50 }}`, `hél…|héllo world`},
		{"index reads optional properties", `{{ index . "missing" }}`, `<no value>`},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			tmpl, err := ParseTemplate("t", tc.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := tmpl.Execute(&b, data); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

func TestParseTemplateMissingKeyIsAnError(t *testing.T) {
	tmpl, err := ParseTemplate("t", `{{ .missing }}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := tmpl.Execute(&strings.Builder{}, map[string]any{}); err == nil {
		t.Error("a missing key rendered without error")
	}
	if _, err := ParseTemplate("t", `{{ if }}`); err == nil || !strings.HasPrefix(err.Error(), "tools: template t:") {
		t.Errorf("ParseTemplate = %v", err)
	}
}
