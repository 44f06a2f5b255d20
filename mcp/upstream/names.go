package upstream

import (
	"fmt"
	"strings"

	"github.com/quiver-go/quiver/tools"
)

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
