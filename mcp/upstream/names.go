package upstream

import (
	"fmt"
	"strings"

	"github.com/quiver-go/quiver/tools"
)

// Names. An upstream tool keeps its own name as our tool name when that
// name is a valid tool name ([tools.NewIdent]: no dot, no whitespace or
// control character, valid UTF-8). MCP allows dots in tool names and we do
// not (an ident splits at its last dot), so each '.' becomes '_'
// ("files.read" is our "files_read"); the toolset keeps the mapping
// ([Toolset.Names]) and [Client.Execute] sends the server's name, so the
// model and the server each read their own name for the same tool. A name
// that is still invalid after that, or that would take the name of
// another listed tool (a server listing both "a.b" and "a_b": "a_b" keeps
// its name and "a.b" is left out), is skipped and reported
// ([Toolset.Skipped]), never renamed otherwise. Wire names (what a
// provider reads, at most 64 characters of [a-zA-Z0-9_-]) are the
// catalog's business: it maps every ident to one reversibly.

// ToolName returns our tool name for the upstream tool name upstream in
// toolset, or an error saying why it has none (see the package's rules
// above).
func ToolName(toolset, upstream string) (string, error) {
	name := strings.ReplaceAll(upstream, ".", "_")
	if _, err := tools.NewIdent(toolset, name); err != nil {
		return "", fmt.Errorf("the server's tool name %q makes no valid tool name: %w", upstream, err)
	}
	return name, nil
}

// mapNames maps the upstream names of listed to our tool names in
// toolset: ours → the server's, and the tools left out.
func mapNames(toolset string, listed []Tool) (map[string]string, []SkippedTool) {
	names := make(map[string]string, len(listed))
	verbatim := make(map[string]bool, len(listed))
	for _, t := range listed {
		verbatim[t.Name] = true
	}
	var skipped []SkippedTool
	for _, t := range listed {
		name, err := ToolName(toolset, t.Name)
		if err != nil {
			skipped = append(skipped, SkippedTool{Name: t.Name, Reason: err.Error()})
			continue
		}
		if prev, dup := names[name]; dup || (name != t.Name && verbatim[name]) {
			if !dup {
				prev = name
			}
			skipped = append(skipped, SkippedTool{Name: t.Name, Reason: fmt.Sprintf("its tool name %q (dots made underscores) is the server's tool %q already", name, prev)})
			continue
		}
		names[name] = t.Name
	}
	return names, skipped
}
