package portable

import (
	"context"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

// searchThenExport is a model that says a word, searches, then calls the
// tool it found.
func searchThenExport() []scripted.Step {
	return []scripted.Step{
		scripted.Assistant("Let me look for an export tool.", scripted.ToolCallSpec{Name: "search_tools", Payload: `{"query":"export a table to csv"}`}),
		scripted.Assistant("Exporting the orders now.", scripted.ToolCallSpec{Name: "startExport", Payload: `{"table":"orders","format":"csv"}`}),
	}
}

// TestStreamWithPortableSearchStreamsEveryRound streams both rounds from a
// streaming inner client: the first round's text, the search as one
// ChunkSearch between the rounds, the second round's text
// and call; the search tool's deltas and call never appear; the second
// request carries the found tool; the final response is Complete's.
func TestStreamWithPortableSearchStreamsEveryRound(t *testing.T) {
	want, err := Wrap(scripted.New(searchThenExport()...)).Complete(context.Background(), workspaceRequest())
	if err != nil {
		t.Fatal(err)
	}
	inner := scripted.New(searchThenExport()...).WithStreaming()
	st, err := Wrap(inner).Stream(context.Background(), workspaceRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var text strings.Builder
	var searches []model.SearchRound
	var calls []model.ToolCall
	var usage model.Usage
	var usages int
	var done *model.Response
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch c.Kind {
		case model.ChunkText:
			text.WriteString(c.Text)
		case model.ChunkToolCallDelta:
			if c.ToolCallDelta.Name != "startExport" {
				t.Fatalf("a delta of %q reached the stream", c.ToolCallDelta.Name)
			}
		case model.ChunkToolCall:
			calls = append(calls, *c.ToolCall)
		case model.ChunkSearch:
			// After the whole first round (its text and its usage), before
			// anything of the second.
			if usages != 1 || text.String() != "Let me look for an export tool." {
				t.Fatalf("the search arrived after %d usage chunks and the text %q, want between the rounds", usages, text.String())
			}
			searches = append(searches, *c.Search)
		case model.ChunkUsage:
			usage = usage.Add(*c.Usage)
			usages++
		case model.ChunkDone:
			done = c.Response
		}
	}
	if want := []model.SearchRound{{Query: "export a table to csv", Found: []string{"startExport"}}}; !reflect.DeepEqual(searches, want) {
		t.Fatalf("searches = %+v, want %+v", searches, want)
	}
	if text.String() != "Let me look for an export tool.Exporting the orders now." {
		t.Fatalf("text = %q", text.String())
	}
	if len(calls) != 1 || calls[0].Name != "startExport" {
		t.Fatalf("calls = %+v, want only the business call", calls)
	}
	reqs := inner.Requests()
	if len(reqs) != 2 || !slices.Contains(toolNames(reqs[1].Tools), "startExport") {
		t.Fatalf("the second request's tools = %v, want the found tool", toolNames(reqs[1].Tools))
	}
	if done == nil || usage != done.Usage {
		t.Fatalf("the usage chunks add up to %+v, the response says %+v", usage, done)
	}
	if !reflect.DeepEqual(done, want) {
		t.Fatalf("final response %+v\nComplete returned %+v", done, want)
	}
}

// TestStreamInCallToolModeDeliversTheCallOfTheNamedTool streams a
// call_tool call: the stream shows the named tool's call, never call_tool
// or the search tool.
func TestStreamInCallToolModeDeliversTheCallOfTheNamedTool(t *testing.T) {
	inner := scripted.New(
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Calls(scripted.ToolCallSpec{ID: "c7", Name: "call_tool", Payload: `{"name":"startExport","arguments":{"table":"orders"}}`}),
	).WithStreaming()
	resp, err := model.Collect(must(t)(Wrap(inner).Stream(context.Background(), callToolRequest())), func(c model.Chunk) error {
		switch {
		case c.Kind == model.ChunkToolCallDelta && c.ToolCallDelta.Name != "startExport":
			t.Errorf("a delta of %q reached the stream", c.ToolCallDelta.Name)
		case c.Kind == model.ChunkToolCallDelta && c.ToolCallDelta.Arguments != `{"table":"orders"}`:
			t.Errorf("delta %+v, want the named tool's arguments", c.ToolCallDelta)
		case c.Kind == model.ChunkToolCall && (c.ToolCall.ID != "c7" || c.ToolCall.Name != "startExport" || string(c.ToolCall.Payload) != `{"table":"orders"}`):
			t.Errorf("call %+v, want startExport with the call's id and arguments", c.ToolCall)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "startExport" {
		t.Fatalf("calls = %+v", resp.ToolCalls)
	}
}

// TestStreamFailsWhenARoundIsInterrupted breaks the second round's
// stream: the invocation's stream fails with ErrStreamInterrupted after
// the text that arrived, without a final response.
func TestStreamFailsWhenARoundIsInterrupted(t *testing.T) {
	inner := scripted.New(
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.FailMidStream("Exporting", model.ErrStreamInterrupted),
	).WithStreaming()
	var got []model.ChunkKind
	_, err := model.Collect(must(t)(Wrap(inner).Stream(context.Background(), workspaceRequest())), func(c model.Chunk) error {
		got = append(got, c.Kind)
		return nil
	})
	if !errors.Is(err, model.ErrStreamInterrupted) {
		t.Fatalf("err = %v, want ErrStreamInterrupted", err)
	}
	if want := []model.ChunkKind{model.ChunkUsage, model.ChunkSearch, model.ChunkText}; !reflect.DeepEqual(got, want) {
		t.Fatalf("chunks = %v, want %v", got, want)
	}
}

func TestStreamRefusesWhatCompleteRefusesBeforeAnyRequest(t *testing.T) {
	inner := scripted.New()
	req := workspaceRequest()
	req.Tools = append(req.Tools, def("ws.search_tools", "A tool with the search tool's name.", false))
	if _, err := Wrap(inner).Stream(context.Background(), req); err == nil || !strings.Contains(err.Error(), "has the search tool's name") {
		t.Fatalf("err = %v", err)
	}
	if inner.Calls() != 0 {
		t.Fatal("a request reached the inner client")
	}
}

// must returns a function that fails the test when Stream failed.
func must(t *testing.T) func(model.Streamer, error) model.Streamer {
	return func(st model.Streamer, err error) model.Streamer {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}
