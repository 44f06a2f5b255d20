package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// spec returns the parity toolset's tool named name.
func spec(t testing.TB, name string) tools.ToolSpec {
	t.Helper()
	for _, s := range parityToolset(t) {
		if s.Name.Tool() == name {
			return s
		}
	}
	t.Fatalf("no tool %s", name)
	return tools.ToolSpec{}
}

func TestBoundsCrossInTheResultsCanonicalFields(t *testing.T) {
	more := spec(t, "more")
	total := 9
	b := toolcall.Bounds{Returned: 2, Total: &total, Truncated: true, NextCursor: "c3", RefinementHint: "narrow it"}
	carried, err := toolcall.WithBoundsFields(more, json.RawMessage(`{"items":["a","b"]}`), b)
	if err != nil {
		t.Fatal(err)
	}
	back := toolcall.BoundsFromResult(more, carried)
	if back.Failure != nil {
		t.Fatalf("read back %s: %v", carried, back.Failure)
	}
	if string(back.Result) != `{"items":["a","b"]}` || back.Bounds.Returned != 2 || *back.Bounds.Total != 9 || !back.Bounds.Truncated || back.Bounds.NextCursor != "c3" || back.Bounds.RefinementHint != "narrow it" {
		t.Fatalf("carried %s, read back %s %+v", carried, back.Result, back.Bounds)
	}
	if _, err := toolcall.WithBoundsFields(more, json.RawMessage(`{"items":`), b); err == nil {
		t.Fatal("a broken result was given bounds fields")
	}
}

func TestBoundsFromResultNamesWhatIsMissing(t *testing.T) {
	list := spec(t, "list")
	for result, want := range map[string]string{
		`[1,2]`:            "not an object with its bounds fields",
		`{"items":[]}`:     `no "returned" count`,
		`{"returned":"x"}`: `no "returned" count`,
	} {
		res := toolcall.BoundsFromResult(list, json.RawMessage(result))
		if res.Failure == nil || res.Failure.Code != toolcall.KindMissingBounds || !strings.Contains(res.Failure.Message, want) {
			t.Errorf("BoundsFromResult(%s) = %+v, want missing_bounds saying %q", result, res.Failure, want)
		}
	}
}

func TestShapeNeverShowsServerDataAndDropsInternal(t *testing.T) {
	greet := spec(t, "greet")
	out := toolcall.Shape(greet, &toolcall.Result{
		Result: json.RawMessage(`{"greeting":"hi"}`),
		ServerData: []toolcall.ServerData{
			{Kind: "greet.audit", Audience: tools.AudienceInternal, Data: json.RawMessage(`1`)}, // the spec says timeline
			{Kind: "other", Data: json.RawMessage(`2`)},
			{Kind: "cache", Audience: tools.AudienceInternal, Data: json.RawMessage(`3`)},
		},
	}, toolcall.Options{})
	if out.Failure != nil || string(out.Answer()) != `{"greeting":"hi"}` {
		t.Fatalf("answer %s, failure %v", out.Answer(), out.Failure)
	}
	if len(out.ServerData) != 2 || out.ServerData[0].Audience != tools.AudienceTimeline || out.ServerData[1].Audience != tools.AudienceTimeline {
		t.Fatalf("server data %+v: want the declared audience to win, the empty one timeline, internal dropped", out.ServerData)
	}
}

func TestRunInjectsOnceAndTellsCancellationFromFailure(t *testing.T) {
	greet := spec(t, "greet")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	exec := toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		return nil, ctx.Err()
	})
	out, err := toolcall.Run(ctx, exec, &toolcall.Call{Ident: greet.Name, Spec: greet, Payload: json.RawMessage(`{"name":"Ada"}`)}, toolcall.Options{})
	if !errors.Is(err, context.Canceled) || !out.Ran {
		t.Fatalf("a cancelled run: %v, ran %v: want the caller's cancellation", err, out.Ran)
	}
	out, err = toolcall.Run(context.Background(), exec, &toolcall.Call{Ident: greet.Name, Spec: greet, Payload: json.RawMessage(`{"name":7}`)}, toolcall.Options{})
	if err != nil || out.Ran || out.Failure.Code != toolcall.KindInvalidPayload {
		t.Fatalf("an invalid payload: %v, ran %v, %v", err, out.Ran, out.Failure)
	}
	out, _ = toolcall.Run(context.Background(), exec, &toolcall.Call{Ident: greet.Name, Spec: greet, Payload: json.RawMessage(`{}`)}, toolcall.Options{RunMissing: true})
	if !out.Ran {
		t.Fatal("RunMissing did not run a call lacking only required fields")
	}
}

func TestFailureShapesAndKinds(t *testing.T) {
	f := toolcall.Fail("unknown_city", "", "No city named %q.", "Atlantis")
	if f.Recovery != toolcall.RecoveryReplan || string(f.JSON()) != `{"error":"unknown_city","message":"No city named \"Atlantis\".","recovery":"replan"}` {
		t.Fatalf("Fail = %+v, JSON %s", f, f.JSON())
	}
	if got := toolcall.AsFailure(errors.Join(errors.New("x"), f)); got != f {
		t.Fatalf("AsFailure found %v", got)
	}
	for _, k := range toolcall.Kinds {
		if !toolcall.ValidKind(k) {
			t.Errorf("kind %q is not a valid kind", k)
		}
	}
	for _, k := range []toolcall.Kind{"", "Tool", "9x", "a-b", toolcall.Kind(strings.Repeat("a", 65))} {
		if toolcall.ValidKind(k) {
			t.Errorf("ValidKind(%q)", k)
		}
	}
}

// FuzzBoundsFromResult reads a provider's result as a consumer does: it
// never panics, and bounds it reads are written back to the same.
func FuzzBoundsFromResult(f *testing.F) {
	for _, seed := range []string{`{"items":[1],"returned":1,"truncated":false,"next_cursor":"n"}`, `{}`, `[1]`, `"x"`, `{"returned":1,"returned":2}`, `{"a":{"b":[{}]},"returned":0,"total":3}`} {
		f.Add(seed)
	}
	more := spec(f, "more")
	f.Fuzz(func(t *testing.T, result string) {
		res := toolcall.BoundsFromResult(more, json.RawMessage(result))
		if res.Failure != nil {
			return
		}
		carried, err := toolcall.WithBoundsFields(more, res.Result, *res.Bounds)
		if err != nil {
			t.Fatalf("bounds read from %s do not write back: %v", result, err)
		}
		again := toolcall.BoundsFromResult(more, carried)
		if again.Failure != nil || string(again.Result) != string(res.Result) || again.Bounds.Returned != res.Bounds.Returned || again.Bounds.NextCursor != res.Bounds.NextCursor {
			t.Fatalf("%s read %s %+v, written back %s, read %s %+v", result, res.Result, res.Bounds, carried, again.Result, again.Bounds)
		}
	})
}
