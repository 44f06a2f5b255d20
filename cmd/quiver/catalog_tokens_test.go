package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model/tokencount/advertised"
)

// tokenShapes decodes the --json output of quiver catalog tokens for the
// given provider, checking its keys exactly: "approximate" (true) is there
// for anthropic only.
func tokenShapes(t *testing.T, stdout, provider string) (tools int, shapes []advertised.Shape) {
	t.Helper()
	keys := []string{"provider", "encoding", "tools", "shapes"}
	if provider == "anthropic" {
		keys = append(keys, "approximate")
	}
	wantKeys(t, []byte(stdout), keys...)
	var raw struct {
		Provider    string
		Encoding    string
		Approximate *bool
		Tools       int
		Shapes      []json.RawMessage
	}
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Provider != provider {
		t.Errorf("provider = %q, want %q", raw.Provider, provider)
	}
	if raw.Encoding != "o200k_base" {
		t.Errorf("encoding = %q", raw.Encoding)
	}
	if provider == "anthropic" && (raw.Approximate == nil || !*raw.Approximate) {
		t.Errorf("approximate = %v, want true", raw.Approximate)
	}
	shapes = make([]advertised.Shape, len(raw.Shapes))
	for i, s := range raw.Shapes {
		wantKeys(t, s, "name", "inline", "deferred", "tokens")
		if err := json.Unmarshal(s, &shapes[i]); err != nil {
			t.Fatal(err)
		}
	}
	return raw.Tools, shapes
}

func TestTokensEmbeddedSplitByName(t *testing.T) {
	r := quiver(t, "catalog", "tokens", "--inline", "workspace.openTable, workspace.applyFilter,workspace.runQuery", "--json").mustSucceed(t)
	tools, shapes := tokenShapes(t, r.stdout, "openai")
	if len(shapes) != 3 {
		t.Fatalf("shapes = %+v", shapes)
	}
	all, searchOnly, split := shapes[0], shapes[1], shapes[2]
	if all.Name != "all-inline" || searchOnly.Name != "search-only" || split.Name != "split" {
		t.Errorf("shape names = %+v", shapes)
	}
	if all.Inline != tools || searchOnly.Deferred != tools || split.Inline != 3 || split.Deferred != tools-3 {
		t.Errorf("inline/deferred = %+v", shapes)
	}
	if !(all.Tokens >= split.Tokens && split.Tokens >= searchOnly.Tokens && searchOnly.Tokens > 0) {
		t.Errorf("want all-inline >= split >= search-only > 0: %+v", shapes)
	}
}

func TestTokensSplitByCountOnFile(t *testing.T) {
	r := quiver(t, "catalog", "tokens", "--catalog", "testdata/tiny.json", "--inline-count", "2", "--json").mustSucceed(t)
	tools, shapes := tokenShapes(t, r.stdout, "openai")
	if tools != 3 || len(shapes) != 3 || shapes[2].Inline != 2 || shapes[2].Deferred != 1 {
		t.Errorf("tools %d, shapes %+v", tools, shapes)
	}
}

func TestTokensWithoutSplit(t *testing.T) {
	r := quiver(t, "catalog", "tokens").mustSucceed(t)
	for _, want := range []string{"SHAPE", "all-inline", "search-only", "o200k_base"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "split") {
		t.Errorf("no split was chosen but one is reported:\n%s", r.stdout)
	}
}

func TestTokensErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--inline", "workspace.openTable,nope,zip,nope"}, "quiver: --inline: internal/catalogs/workspace.json (embedded) has no tool named \"nope\"\n" +
			"quiver: --inline: internal/catalogs/workspace.json (embedded) has no tool named \"zip\"\n"},
		{[]string{"--inline", "opentable"}, "quiver: --inline: internal/catalogs/workspace.json (embedded) has no tool named \"opentable\" (did you mean workspace.openTable?)\n"},
		{[]string{"--catalog", "testdata/two_toolsets.json", "--inline", "startExport,openTable"}, "quiver: --inline: \"openTable\" names 2 tools of testdata/two_toolsets.json: crm.openTable, workspace.openTable; give the full name\n"},
		{[]string{"--catalog", "testdata/tiny.json", "--inline-count", "4"}, "quiver: --inline-count 4: testdata/tiny.json has only 3 tools\n"},
		{[]string{"--catalog", "testdata/one.json", "--inline-count", "2"}, "quiver: --inline-count 2: testdata/one.json has only 1 tool\n"},
		{[]string{"--catalog", "testdata/bad_schema.json"}, "quiver: catalogfile: testdata/bad_schema.json:4:39: tools[1].inputSchema: expected a JSON Schema object, got array\n"},
	}
	for _, tt := range tests {
		r := quiver(t, append([]string{"catalog", "tokens"}, tt.args...)...)
		if r.code != exitError || r.stderr != tt.want {
			t.Errorf("%v: exit %d, stderr\n got: %q\nwant: %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

func TestTokensAnthropicSplitByName(t *testing.T) {
	args := []string{"catalog", "tokens", "--provider", "anthropic", "--inline", "workspace.openTable,workspace.applyFilter,workspace.runQuery", "--json"}
	r := quiver(t, args...).mustSucceed(t)
	tools, shapes := tokenShapes(t, r.stdout, "anthropic")
	if len(shapes) != 3 {
		t.Fatalf("shapes = %+v", shapes)
	}
	all, searchOnly, split := shapes[0], shapes[1], shapes[2]
	if all.Name != "all-inline" || searchOnly.Name != "search-only" || split.Name != "split" {
		t.Errorf("shape names = %+v", shapes)
	}
	if all.Inline != tools || searchOnly.Deferred != tools || split.Inline != 3 || split.Deferred != tools-3 {
		t.Errorf("inline/deferred = %+v", shapes)
	}
	if !(all.Tokens > split.Tokens && split.Tokens > searchOnly.Tokens && searchOnly.Tokens > 0) {
		t.Errorf("want all-inline > split > search-only > 0: %+v", shapes)
	}
	// Deterministic, and differing from the OpenAI figures: another shape.
	again := quiver(t, args...).mustSucceed(t)
	if again.stdout != r.stdout {
		t.Errorf("two runs differ:\n%s\n%s", r.stdout, again.stdout)
	}
	_, openai := tokenShapes(t, quiver(t, "catalog", "tokens", "--provider", "openai", "--inline", "workspace.openTable,workspace.applyFilter,workspace.runQuery", "--json").mustSucceed(t).stdout, "openai")
	if openai[1].Tokens == searchOnly.Tokens {
		t.Errorf("search-only costs %d tokens for both providers; the search tools differ", searchOnly.Tokens)
	}
}

func TestTokensAnthropicText(t *testing.T) {
	r := quiver(t, "catalog", "tokens", "--catalog", "testdata/tiny.json", "--provider", "anthropic", "--inline-count", "1").mustSucceed(t)
	for _, want := range []string{"Anthropic Messages", "tool_search_tool_bm25", "defer_loading", "approximation", "o200k_base", "split"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	plain := quiver(t, "catalog", "tokens", "--catalog", "testdata/tiny.json", "--inline-count", "1").mustSucceed(t)
	if strings.Contains(plain.stdout, "approximation") || !strings.Contains(plain.stdout, "OpenAI Responses") {
		t.Errorf("the default provider is openai, counted exactly:\n%s", plain.stdout)
	}
}

func TestTokensUnknownProvider(t *testing.T) {
	r := quiver(t, "catalog", "tokens", "--provider", "gemini")
	if r.code != exitUsage || !strings.HasPrefix(r.stderr, `quiver: --provider "gemini": want openai or anthropic`+"\n") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestTokensAnthropicSearchAndCache(t *testing.T) {
	base := []string{"catalog", "tokens", "--provider", "anthropic", "--inline-count", "3", "--json"}
	_, bm25 := tokenShapes(t, quiver(t, base...).mustSucceed(t).stdout, "anthropic")
	_, client := tokenShapes(t, quiver(t, append(base, "--anthropic-search", "client")...).mustSucceed(t).stdout, "anthropic")
	_, cached := tokenShapes(t, quiver(t, append(base, "--cache-after-tools")...).mustSucceed(t).stdout, "anthropic")
	// The hosted tool is a type and a name; the client-side one carries a
	// description and a schema; cache_control adds to the last tool.
	if !(client[1].Tokens > bm25[1].Tokens && cached[1].Tokens > bm25[1].Tokens && cached[0].Tokens > bm25[0].Tokens) {
		t.Errorf("bm25 %+v, client %+v, cached %+v", bm25, client, cached)
	}
	text := quiver(t, "catalog", "tokens", "--provider", "anthropic", "--anthropic-search", "regex", "--inline-count", "3").mustSucceed(t)
	if !strings.Contains(text.stdout, "tool_search_tool_regex") {
		t.Errorf("output does not name the regex search tool:\n%s", text.stdout)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--provider", "anthropic", "--anthropic-search", "vector"}, `quiver: --anthropic-search "vector": want bm25, regex or client` + "\n"},
		{[]string{"--anthropic-search", "regex"}, "quiver: --anthropic-search applies to --provider anthropic only\n"},
	} {
		r := quiver(t, append([]string{"catalog", "tokens"}, tt.args...)...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestTokensNamesBareOrFull: --inline takes a tool's bare name when no
// other toolset shares it, and counts the same split as the full names.
func TestTokensNamesBareOrFull(t *testing.T) {
	full := quiver(t, "catalog", "tokens", "--inline", "workspace.openTable,workspace.applyFilter,workspace.runQuery", "--json").mustSucceed(t)
	bare := quiver(t, "catalog", "tokens", "--inline", "openTable,applyFilter,workspace.runQuery", "--json").mustSucceed(t)
	if bare.stdout != full.stdout {
		t.Errorf("bare names count another split:\n%s\n%s", bare.stdout, full.stdout)
	}
	r := quiver(t, "catalog", "tokens", "--catalog", "testdata/two_toolsets.json", "--inline", "startExport,crm.openTable", "--json").mustSucceed(t)
	if _, shapes := tokenShapes(t, r.stdout, "openai"); shapes[2].Inline != 2 || shapes[2].Deferred != 1 {
		t.Errorf("shapes = %+v, want 2 inline", shapes)
	}
}

func TestTokensSingularTool(t *testing.T) {
	r := quiver(t, "catalog", "tokens", "--catalog", "testdata/one.json").mustSucceed(t)
	if !strings.Contains(r.stdout, "catalog   testdata/one.json: 1 tool\n") {
		t.Errorf("stdout does not say 1 tool:\n%s", r.stdout)
	}
}
