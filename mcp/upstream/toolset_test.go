package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// TestListedToolset: what the server lists compiles into the toolset, a
// dotted name mapped to underscores and called by the server's name;
// a name no tool may have and a schema the contract refuses are skipped
// and reported.
func TestListedToolset(t *testing.T) {
	c := connect(t, "stdio", upstream.Config{})
	ctx := withTimeout(t, 30*time.Second)
	ts, err := c.ListedToolset(ctx, "test.srv")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range ts.Specs {
		names = append(names, string(s.Name))
	}
	for _, want := range []string{"test.srv.echo", "test.srv.dotted_name", "test.srv.fail"} {
		if !slices.Contains(names, want) {
			t.Fatalf("specs %v lack %s", names, want)
		}
	}
	skipped := map[string]string{}
	for _, s := range ts.Skipped {
		skipped[s.Name] = s.Reason
	}
	if len(skipped) != 2 || !strings.Contains(skipped["has space"], "whitespace") || !strings.Contains(skipped["bad_schema"], "bad_schema") {
		t.Fatalf("skipped %v, want \"has space\" (whitespace) and bad_schema", skipped)
	}
	for _, n := range names {
		if strings.HasSuffix(n, "has space") || strings.HasSuffix(n, "bad_schema") {
			t.Fatalf("skipped tool %s is in the specs", n)
		}
	}
	if ts.Names["dotted_name"] != "dotted.name" || ts.Names["echo"] != "echo" {
		t.Fatalf("names %v", ts.Names)
	}
	wantResult(t, call(t, ctx, ts.Executor, "test.srv", "dotted_name", `{}`), `{"called":"dotted.name"}`)

	// The echo spec validates payloads and results as the server declared.
	var echo tools.ToolSpec
	for _, s := range ts.Specs {
		if s.Name == "test.srv.echo" {
			echo = s
		}
	}
	if !strings.Contains(string(echo.Payload.Schema), `"text"`) || !strings.Contains(string(echo.Result.Schema), `"length"`) || echo.Title != "Echo" {
		t.Fatalf("echo spec: title %q payload %s result %s", echo.Title, echo.Payload.Schema, echo.Result.Schema)
	}
}

// TestToolNames: the names rules, and a collision skipped.
func TestToolNames(t *testing.T) {
	for upstreamName, want := range map[string]string{
		"echo": "echo", "files.read": "files_read", "a.b.c": "a_b_c", "kebab-case": "kebab-case",
		"has space": "", "": "", "tab\t": "",
	} {
		got, err := upstream.ToolName("ts", upstreamName)
		if (err == nil) != (want != "") || got != want {
			t.Errorf("ToolName(%q) = %q, %v; want %q", upstreamName, got, err, want)
		}
	}
}

// declared compiles declared tools of toolset ts.
func declared(t *testing.T, ts string, decls ...contract.ToolDeclaration) []tools.ToolSpec {
	t.Helper()
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: ts, Tools: decls})
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// TestDeclaredToolset: declared schemas equal to the server's after
// normalization bind; drifted and missing ones refuse the toolset with a
// report per tool.
func TestDeclaredToolset(t *testing.T) {
	c := connect(t, "stdio", upstream.Config{})
	ctx := withTimeout(t, 30*time.Second)

	// The same schemas, written differently: other key order, a $schema,
	// other descriptions, titles and examples.
	same := declared(t, "ext",
		contract.ToolDeclaration{Name: "big", Title: "Big", InputSchema: json.RawMessage(
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","required":["bytes"],"properties":{"bytes":{"type":"integer","description":"how many","examples":[3]}},"type":"object","title":"Big"}`)},
		contract.ToolDeclaration{Name: "echo", Title: "Echo", InputSchema: json.RawMessage(
			`{"type":"object","required":["text"],"properties":{"text":{"type":"string"}},"additionalProperties":false}`)},
		contract.ToolDeclaration{Name: "dotted_name", Title: "Dotted", InputSchema: json.RawMessage(`{"type":"object"}`)},
	)
	ts, err := c.DeclaredToolset(ctx, "ext", same)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Specs) != 3 || ts.Names["dotted_name"] != "dotted.name" {
		t.Fatalf("toolset %+v", ts)
	}
	wantResult(t, call(t, ctx, ts.Executor, "ext", "big", `{"bytes":2}`), `{"text":"xx"}`)
	wantResult(t, call(t, ctx, ts.Executor, "ext", "dotted_name", `{}`), `{"called":"dotted.name"}`)

	drifted := declared(t, "ext",
		contract.ToolDeclaration{Name: "big", Title: "Big", InputSchema: json.RawMessage(
			`{"type":"object","required":["bytes"],"properties":{"bytes":{"type":"string"}}}`)},
		contract.ToolDeclaration{Name: "echo", Title: "Echo", InputSchema: json.RawMessage(
			`{"type":"object","required":["text"],"properties":{"text":{"type":"string"},"loud":{"type":"boolean"}}}`)},
		contract.ToolDeclaration{Name: "gone", Title: "Gone", InputSchema: json.RawMessage(`{"type":"object"}`)},
		contract.ToolDeclaration{Name: "text", Title: "Text", InputSchema: json.RawMessage(`{"type":"object"}`)},
	)
	_, err = c.DeclaredToolset(ctx, "ext", drifted)
	var drift *upstream.DriftError
	if !errors.As(err, &drift) {
		t.Fatalf("err %v, want a *DriftError", err)
	}
	if drift.Server != "test" || drift.Toolset != "ext" || len(drift.Tools) != 3 {
		t.Fatalf("drift %+v", drift)
	}
	want := []upstream.ToolDrift{
		{Tool: "big", Diff: []string{`/properties/bytes/type: declared "string", server "integer"`}},
		{Tool: "echo", Diff: []string{`/properties/loud: declared {"type":"boolean"}, server (absent)`}},
		{Tool: "gone", Missing: true},
	}
	for i, w := range want {
		g := drift.Tools[i]
		if g.Tool != w.Tool || g.Missing != w.Missing || !slices.Equal(g.Diff, w.Diff) {
			t.Errorf("drift[%d] = %+v, want %+v", i, g, w)
		}
	}
	msg := err.Error()
	for _, part := range []string{`server "test"`, `toolset "ext"`, "tool gone: the server does not list it", `/properties/bytes/type: declared "string", server "integer"`, "none of its tools is called"} {
		if !strings.Contains(msg, part) {
			t.Errorf("error %q lacks %q", msg, part)
		}
	}

	if _, err := c.DeclaredToolset(context.Background(), "other", same); err == nil {
		t.Fatal("specs of toolset ext bound as toolset other")
	}
}
