package benchdata

import "fmt"

// ToolSDKPrefix is the prefix the distractor benchmarks give a ToolSDK tool
// whose name collides with a labelled tool's (MetaTool and ToolSDK share
// one name, speak).
const ToolSDKPrefix = "toolsdk:"

// Merged is a labelled catalog with distractor tools added: tools that
// answer none of the labelled queries by label, though some may well
// answer them in fact.
type Merged struct {
	// Tools are the labelled tools, unchanged and in their order, then
	// the distractors in theirs.
	Tools []Tool
	// Renamed lists the new names of the distractors renamed to avoid a
	// collision, in the distractors' order.
	Renamed []string
	// original maps each distractor's name in Tools to its name in its
	// own catalog.
	original map[string]string
}

// WithDistractors returns labelled followed by distractors. The labelled
// tools keep their names, which the queries' labels refer to; a distractor
// whose name is already taken is renamed prefix+name. It fails when a
// name repeats within either list or a renamed distractor still collides.
func WithDistractors(labelled, distractors []Tool, prefix string) (Merged, error) {
	m := Merged{
		Tools:    make([]Tool, 0, len(labelled)+len(distractors)),
		original: make(map[string]string, len(distractors)),
	}
	taken := make(map[string]bool, len(labelled)+len(distractors))
	for _, t := range labelled {
		if taken[t.Name] {
			return Merged{}, fmt.Errorf("benchdata: labelled tool name %q repeats", t.Name)
		}
		taken[t.Name] = true
		m.Tools = append(m.Tools, t)
	}
	seen := make(map[string]bool, len(distractors))
	for _, t := range distractors {
		if seen[t.Name] {
			return Merged{}, fmt.Errorf("benchdata: distractor name %q repeats", t.Name)
		}
		seen[t.Name] = true
		name := t.Name
		if taken[name] {
			name = prefix + name
			if taken[name] {
				return Merged{}, fmt.Errorf("benchdata: distractor %q renamed %q still collides", t.Name, name)
			}
			m.Renamed = append(m.Renamed, name)
		}
		taken[name] = true
		m.original[name] = t.Name
		t.Name = name
		m.Tools = append(m.Tools, t)
	}
	return m, nil
}

// Distractor reports whether name is a distractor's name in m.Tools, and
// returns its name in its own catalog.
func (m Merged) Distractor(name string) (original string, ok bool) {
	original, ok = m.original[name]
	return original, ok
}
