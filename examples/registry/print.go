package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/quiver-go/quiver/model"
)

// printMessages writes the messages after the first skip as the model
// read them, with the discovery records kept in message metadata, and
// returns how many messages there are.
func printMessages(w io.Writer, msgs []model.Message, skip int) int {
	for _, m := range msgs[min(skip, len(msgs)):] {
		for _, p := range m.Parts {
			switch {
			case p.Kind == model.PartText:
				fmt.Fprintf(w, "%-10s %s\n", m.Role+":", p.Text)
			case p.ToolCall != nil:
				fmt.Fprintf(w, "%-10s calls %s %s\n", m.Role+":", p.ToolCall.Name, p.ToolCall.Payload)
			case p.ToolResult != nil:
				fmt.Fprintf(w, "%-10s %s → %s\n", m.Role+":", p.ToolResult.Name, p.ToolResult.Content)
			}
		}
		if d, ok := m.Discovery(); ok && len(d.Tools) > 0 {
			var ids []string
			for _, id := range d.Tools {
				ids = append(ids, string(id))
			}
			fmt.Fprintf(w, "           [discovered %s]\n", strings.Join(ids, ", "))
		}
	}
	return len(msgs)
}
