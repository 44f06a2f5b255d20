package runtime

import (
	"fmt"
	"slices"
	"strings"
)

// agentCycleLocked returns a cycle of agents calling agents through agent
// toolsets, written "a uses t (agent b), b uses u (agent a)", or "" when
// there is none. A run of such agents would start children until the depth
// limit stopped it, so registration refuses the link that closes one. The
// caller holds rt.mu.
func (rt *Runtime) agentCycleLocked() string {
	names := make([]string, 0, len(rt.agents))
	for name := range rt.agents {
		names = append(names, name)
	}
	slices.Sort(names) // the same cycle reported first, whatever the map's order
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string // "agent uses toolset (agent next)" steps
	var visit func(agent string) string
	visit = func(agent string) string {
		state[agent] = onPath
		a := rt.agents[agent]
		if a != nil {
			for _, tsName := range a.toolsets {
				ts := rt.toolsets[tsName]
				if ts == nil || ts.reg.Agent == "" {
					continue
				}
				next := ts.reg.Agent
				path = append(path, fmt.Sprintf("%s uses %s (agent %s)", agent, tsName, next))
				switch state[next] {
				case onPath:
					for i, step := range path {
						if strings.HasPrefix(step, next+" uses ") {
							return strings.Join(path[i:], ", ")
						}
					}
				case unseen:
					if c := visit(next); c != "" {
						return c
					}
				}
				path = path[:len(path)-1]
			}
		}
		state[agent] = done
		return ""
	}
	for _, name := range names {
		if state[name] == unseen {
			if c := visit(name); c != "" {
				return c
			}
		}
	}
	return ""
}
