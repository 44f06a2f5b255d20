package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/runtime"
)

// printSetup writes which model runs, how the agent searches, and which
// tools it sees at once and which it must find.
func printSetup(w io.Writer, m chosenModel) {
	fmt.Fprintf(w, "model:  %s\n", m.name)
	fmt.Fprintf(w, "search: %s\n", m.how)
	var inline []string
	for _, t := range weatherTools.Tools {
		if !slices.Contains(deferred, t.Name) {
			inline = append(inline, t.Name)
		}
	}
	fmt.Fprintf(w, "agent:  %s — inline: %s; deferred: %s (loaded by search)\n\n", agentName, strings.Join(inline, ", "), strings.Join(deferred, ", "))
}

// printConversation writes each message as the model read it. A native
// search is not a message part: it is printed from the adapter's metadata
// (the items or blocks kept for replay) where the provider placed it among
// the parts; the discovery record follows the message that carries it.
func printConversation(w io.Writer, msgs []model.Message) {
	for _, m := range msgs {
		native := nativeSearches(m)
		parts := m.Parts
		for pos := 0; len(native) > 0 || len(parts) > 0; pos++ {
			if len(native) > 0 && (native[0].at <= pos || len(parts) == 0) {
				if native[0].line != "" {
					fmt.Fprintf(w, "%-10s %s\n", m.Role+":", native[0].line)
				}
				native = native[1:]
				continue
			}
			printPart(w, m.Role, parts[0])
			parts = parts[1:]
		}
		if d, ok := m.Discovery(); ok {
			var ids []string
			for _, id := range d.Tools {
				ids = append(ids, string(id))
			}
			found := "discovered " + strings.Join(ids, ", ")
			if len(ids) == 0 {
				found = "nothing discovered"
			}
			if d.Searches > 0 {
				fmt.Fprintf(w, "           [metadata: %d search(es) answered by Quiver; %s]\n", d.Searches, found)
			} else {
				fmt.Fprintf(w, "           [metadata: %s by the provider's search]\n", found)
			}
		}
	}
}

// printPart writes one part of a message: text, a call or a result.
func printPart(w io.Writer, role model.Role, p model.Part) {
	switch {
	case p.Kind == model.PartText:
		fmt.Fprintf(w, "%-10s %s\n", role+":", p.Text)
	case p.ToolCall != nil:
		fmt.Fprintf(w, "%-10s calls %s %s\n", role+":", p.ToolCall.Name, p.ToolCall.Payload)
	case p.ToolResult != nil:
		fmt.Fprintf(w, "%-10s %s → %s\n", role+":", p.ToolResult.Name, p.ToolResult.Content)
	}
}

// printOutcome writes how the run ended and, for a provider, the tokens it
// billed.
func printOutcome(w io.Writer, out *runtime.RunOutput, usage bool) {
	calls := "calls"
	if out.ToolCalls == 1 {
		calls = "call"
	}
	fmt.Fprintf(w, "\nrun ended: %s after %d budgeted tool %s\n", out.Reason, out.ToolCalls, calls)
	if usage {
		u := out.Usage
		fmt.Fprintf(w, "usage: %d input tokens (%d read from cache), %d output tokens\n", u.InputTokens, u.CacheReadTokens, u.OutputTokens)
	}
}

// wireBlock is the part of a provider item or block a search line needs:
// an OpenAI Responses item (tool_search_call, tool_search_output) or an
// Anthropic content block (server_tool_use, tool_search_tool_result).
type wireBlock struct {
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	Tools     []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Content struct {
		References []struct {
			ToolName string `json:"tool_name"`
		} `json:"tool_references"`
	} `json:"content"`
}

// placedLine is a line about a provider block, at the block's index among
// the message's content (-1: before every part). Blocks that are not
// about search have an empty line: they hold their place only.
type placedLine struct {
	at   int
	line string
}

// nativeSearches returns a line per search call and per search answer the
// OpenAI or Anthropic adapter kept on m; nothing for other messages. The
// OpenAI adapter keeps no positions: its searches come first, since a
// round that searches is answered before the model calls the tools found.
func nativeSearches(m model.Message) []placedLine {
	type placedBlock struct {
		at  int
		raw json.RawMessage
	}
	var blocks []placedBlock
	if raw, ok := m.Meta[openai.MetaKey]; ok {
		var rec struct {
			Items []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(raw, &rec) == nil {
			for _, it := range rec.Items {
				blocks = append(blocks, placedBlock{at: -1, raw: it})
			}
		}
	}
	if rec, ok, err := anthropic.RecordOf(m); ok && err == nil {
		for _, b := range rec.Blocks {
			blocks = append(blocks, placedBlock{at: b.At, raw: b.Block})
		}
	}
	var lines []placedLine
	for _, pb := range blocks {
		var b wireBlock
		if json.Unmarshal(pb.raw, &b) != nil {
			continue
		}
		line := ""
		switch b.Type {
		case "tool_search_call": // OpenAI: the model's search, run by the adapter
			line = fmt.Sprintf("searches tool_search %s", b.Arguments)
		case "tool_search_output": // OpenAI: the adapter's answer
			var names []string
			for _, t := range b.Tools {
				names = append(names, t.Name)
			}
			line = "tool_search → " + loads(names)
		case "server_tool_use": // Anthropic: the hosted search
			line = fmt.Sprintf("searches %s %s", b.Name, b.Input)
		case "tool_search_tool_result": // Anthropic: the hosted answer
			var names []string
			for _, r := range b.Content.References {
				names = append(names, r.ToolName)
			}
			line = "search result → " + loads(names)
		}
		if line != "" || pb.at >= 0 {
			lines = append(lines, placedLine{at: pb.at, line: line})
		}
	}
	return lines
}

// loads says which tools a search answer loaded.
func loads(names []string) string {
	if len(names) == 0 {
		return "loads nothing"
	}
	return "loads " + strings.Join(names, ", ")
}
