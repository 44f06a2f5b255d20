package mcp

import (
	"slices"
	"strings"
)

// warnUndeclared logs the tools served to no one because they declare no
// exposure and Config.Undeclared is empty: without it a server built from
// method tools (which declare none) lists nothing, and nothing says why.
// It logs again only when the set of such tools changes.
func (s *Server) warnUndeclared(list []Tool) {
	if s.cfg.Undeclared != "" {
		return
	}
	var names []string
	for _, t := range list {
		if t.Spec.Exposure == "" {
			names = append(names, string(t.Spec.Name))
		}
	}
	slices.Sort(names)
	key := strings.Join(names, ",")
	s.mu.Lock()
	same := key == s.undeclaredWarned
	s.undeclaredWarned = key
	s.mu.Unlock()
	if same || len(names) == 0 {
		return
	}
	shown := names[:min(len(names), 5)]
	s.log.Warn("mcp: tools that declare no exposure are served to no client: declare each one's Exposure, or set Config.Undeclared to the tier they need",
		"count", len(names), "tools", strings.Join(shown, ", "))
}
