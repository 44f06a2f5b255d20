package anthropic

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/quiver-go/quiver/model"
)

// MetaKey is the model.Message.Meta key under which the adapter keeps what
// the Messages API needs on replay and the model-neutral parts cannot hold
// (a Record).
const MetaKey = "quiver.anthropic"

// Record is the adapter's metadata on one assistant message. Storage and
// history compaction keep it verbatim (model.Message.Meta); the adapter
// reads it back when it replays the message.
type Record struct {
	// Blocks are the response's content blocks that are neither text nor an
	// ordinary tool_use (server_tool_use, tool_search_tool_result, the
	// client-side search tool's tool_use, thinking, …), verbatim as the
	// provider returned them, each with its index in the response's content.
	// Replay puts each back at that index among the text and tool_use blocks
	// rebuilt from the message's parts.
	Blocks []PlacedBlock `json:"blocks,omitempty"`
	// Results are the tool_result blocks the adapter sent, as sent, for the
	// client-side search calls among Blocks. Replay opens the user message
	// that follows with them.
	Results []json.RawMessage `json:"results,omitempty"`
	// Definitions maps the wire name of each tool a search of this message
	// referenced to the fingerprint of its definition as sent then. A
	// request whose definition under that name differs fails with a
	// *DefinitionChangedError.
	Definitions map[string]string `json:"definitions,omitempty"`
}

// PlacedBlock is one content block at its index in the response's content.
type PlacedBlock struct {
	// At is the block's index in the response's content array.
	At int `json:"at"`
	// Block is the block as the provider returned it.
	Block json.RawMessage `json:"block"`
}

// RecordOf returns the adapter's record on m, if any.
func RecordOf(m model.Message) (Record, bool, error) {
	raw, ok := m.Meta[MetaKey]
	if !ok {
		return Record{}, false, nil
	}
	var r Record
	if err := json.Unmarshal(raw, &r); err != nil {
		return Record{}, false, fmt.Errorf("anthropic: message metadata %q: %w", MetaKey, err)
	}
	return r, true, nil
}

// isZero reports whether r records nothing.
func (r Record) isZero() bool {
	return len(r.Blocks) == 0 && len(r.Results) == 0 && len(r.Definitions) == 0
}

// setRecord stores r on m (nothing when r is empty).
func setRecord(m *model.Message, r Record) error {
	if r.isZero() {
		return nil
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("anthropic: encode message metadata: %w", err)
	}
	if m.Meta == nil {
		m.Meta = make(map[string]json.RawMessage)
	}
	m.Meta[MetaKey] = raw
	return nil
}

// checkHistory fails with a *DefinitionChangedError when a message of msgs
// records a search that referenced a definition the request now carries
// differently (prints: fingerprints of the definitions as sent now, by
// wire name), or no longer carries.
func checkHistory(msgs []model.Message, prints map[string]string) error {
	for i, m := range msgs {
		r, ok, err := RecordOf(m)
		if err != nil {
			return fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		if !ok {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(r.Definitions)) {
			now, present := prints[name]
			if !present {
				return &DefinitionChangedError{Name: name, Message: i, Removed: true}
			}
			if now != r.Definitions[name] {
				return &DefinitionChangedError{Name: name, Message: i}
			}
		}
	}
	return nil
}

// addDiscovery merges idents into m's discovery record, adding searches
// and the exhaustion flag; it records nothing when there is nothing new.
func addDiscovery(m *model.Message, d model.Discovery) {
	if len(d.Tools) == 0 && d.Searches == 0 && !d.Exhausted {
		return
	}
	old, _ := m.Discovery()
	for _, id := range d.Tools {
		if !slices.Contains(old.Tools, id) {
			old.Tools = append(old.Tools, id)
		}
	}
	old.Searches += d.Searches
	old.Exhausted = old.Exhausted || d.Exhausted
	m.SetDiscovery(old)
}

// searchHistory is what the transcript's records say about searches, for
// the tool list of a request.
type searchHistory struct {
	// searched is set when a message holds a search this adapter recorded
	// (a hosted search's blocks or a client-side search's results): the
	// search tool then stays in the request.
	searched bool
	// referenced are the wire names a recorded search referenced with a
	// tool_reference.
	referenced map[string]bool
}

// historyOf reads the searches the records of msgs hold.
func historyOf(msgs []model.Message) (searchHistory, error) {
	h := searchHistory{referenced: make(map[string]bool)}
	for i, m := range msgs {
		r, ok, err := RecordOf(m)
		if err != nil {
			return searchHistory{}, fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		if !ok {
			continue
		}
		if len(r.Definitions) > 0 || len(r.Results) > 0 || slices.ContainsFunc(r.Blocks, isSearchResult) {
			h.searched = true
		}
		for name := range r.Definitions {
			h.referenced[name] = true
		}
	}
	return h, nil
}

// isSearchResult reports whether a recorded block is a hosted search's
// result (tool_search_tool_result), which found nothing when its search
// referenced no tool.
func isSearchResult(b PlacedBlock) bool {
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(b.Block, &head) == nil && head.Type == "tool_search_tool_result"
}
