package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/quiver-go/quiver/model"
)

func modelSearch() model.SearchSettings { return model.SearchSettings{Mode: model.SearchPortable} }

func userSays(text string) []model.Message { return []model.Message{model.UserMessage(text)} }

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// printTranscript writes each message as the model read it, with the
// discovery records kept in message metadata.
func printTranscript(w io.Writer, msgs []model.Message) {
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.Kind == model.PartText:
				fmt.Fprintf(w, "%-9s %s\n", m.Role+":", p.Text)
			case p.ToolCall != nil:
				fmt.Fprintf(w, "%-9s calls %s %s\n", m.Role+":", p.ToolCall.Name, p.ToolCall.Payload)
			case p.ToolResult != nil:
				fmt.Fprintf(w, "%-9s %s → %s\n", m.Role+":", p.ToolResult.Name, p.ToolResult.Content)
			}
		}
		if d, ok := m.Discovery(); ok {
			var ids []string
			for _, id := range d.Tools {
				ids = append(ids, string(id))
			}
			fmt.Fprintf(w, "          [metadata: %d search(es); discovered %s]\n", d.Searches, strings.Join(ids, ", "))
		}
	}
}
