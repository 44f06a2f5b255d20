package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/quiver-go/quiver/model"
)

// MetaKey is the Message.Meta key under which the adapter keeps the items
// of an invocation, to replay the conversation exactly.
const MetaKey = "openai"

// record is the value stored under MetaKey: the invocation's output items
// as the provider returned them, in order, with the tool_search_output
// items the adapter answered placed after the round that asked for them.
// Every item is a valid Responses input item.
type record struct {
	Items []json.RawMessage `json:"items"`
}

// setRecord stores rec on m.
func setRecord(m *model.Message, rec record) {
	if rec.Items == nil {
		rec.Items = []json.RawMessage{}
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return // raw JSON items from the SDK or our own encoder always encode
	}
	if m.Meta == nil {
		m.Meta = make(map[string]json.RawMessage)
	}
	m.Meta[MetaKey] = raw
}

// recordOf returns the record stored on m, if any.
func recordOf(m model.Message, index int) (record, bool, error) {
	raw, ok := m.Meta[MetaKey]
	if !ok {
		return record{}, false, nil
	}
	var rec record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return record{}, false, fmt.Errorf("openai: message %d: metadata %q is not an adapter record: %w", index, MetaKey, err)
	}
	return rec, true, nil
}

// replay appends a record's items to the history. In tool_search_output
// items, namespaces whose definition is gone or changed are dropped.
func (inv *invocation) replay(rec record, index int) error {
	for _, raw := range rec.Items {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("openai: message %d: replayed item: %w", index, err)
		}
		if head.Type == "tool_search_call" {
			inv.searchCalls = true
		}
		if head.Type == "function_call" {
			var call struct {
				CallID    string `json:"call_id"`
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			}
			if err := json.Unmarshal(raw, &call); err != nil {
				return fmt.Errorf("openai: message %d: replayed function_call: %w", index, err)
			}
			if err := inv.checkCallIdentity(index, call.CallID, call.Name, call.Namespace); err != nil {
				return err
			}
		}
		if head.Type == "tool_search_output" {
			if err := inv.noteSearchOutput(raw); err != nil {
				return fmt.Errorf("openai: message %d: %w", index, err)
			}
			var err error
			if raw, err = inv.filterSearchOutput(raw); err != nil {
				return fmt.Errorf("openai: message %d: %w", index, err)
			}
		}
		inv.history = append(inv.history, rawItem(raw))
	}
	return nil
}

// noteSearchOutput records, for checkCallIdentity, the functions a replayed
// tool_search_output loaded and the containers it loaded them in: for an
// entry {"type":"namespace","name":NS,"tools":[{"type":"function",
// "name":F}…]} the namespace NS; for a function entry at the top of the
// output's tools ({"type":"function","name":F}, as a client that places
// dynamic functions outside a namespace writes it) the empty container.
// It reads the item as stored, before filterSearchOutput drops what no
// longer renders the same: a call's identity is what the provider was
// shown then.
func (inv *invocation) noteSearchOutput(raw json.RawMessage) error {
	type entry struct {
		Type  string            `json:"type"`
		Name  string            `json:"name"`
		Tools []json.RawMessage `json:"tools"`
	}
	var item struct {
		Tools []entry `json:"tools"`
	}
	if err := json.Unmarshal(raw, &item); err != nil {
		return fmt.Errorf("replayed tool_search_output: %w", err)
	}
	note := func(fn, container string) {
		if inv.searched == nil {
			inv.searched = make(map[string]map[string]bool)
		}
		if inv.searched[fn] == nil {
			inv.searched[fn] = make(map[string]bool)
		}
		inv.searched[fn][container] = true
	}
	for _, e := range item.Tools {
		switch e.Type {
		case "namespace":
			for _, t := range e.Tools {
				var fn entry
				if err := json.Unmarshal(t, &fn); err != nil {
					return fmt.Errorf("replayed tool_search_output namespace %q: %w", e.Name, err)
				}
				if fn.Type == "function" {
					note(fn.Name, e.Name)
				}
			}
		case "function":
			note(e.Name, "")
		}
	}
	return nil
}

// checkCallIdentity applies Bedrock's replay rule to one function call of
// the history (index is its message). A call of a searched tool — one
// whose name an earlier tool_search_output of the history loaded — lacks
// its namespace container when the call carries no namespace, or one that
// is not a namespace an earlier output loaded the function in (the output
// placed the function outside any namespace, or the provider returned the
// call without the namespace, or the message was rebuilt from its parts,
// which hold no namespace). Bedrock needs the namespace with the name —
// the call's full identity — to replay the call, and the adapter does not
// invent a field the provider did not return: on Bedrock the history is
// refused before anything is sent (ErrCallWithoutNamespace). Calls of
// tools no search loaded (eager tools, or discovered tools advertised as
// functions) are not concerned, and direct OpenAI keeps replaying as
// before.
func (inv *invocation) checkCallIdentity(index int, callID, name, namespace string) error {
	containers := inv.searched[name]
	if !inv.c.bedrock || containers == nil || (namespace != "" && containers[namespace]) {
		return nil
	}
	var what string
	switch {
	case namespace != "":
		what = fmt.Sprintf("in namespace %q, which no earlier tool_search_output loaded it in", namespace)
	case containers[""] && len(containers) == 1:
		what = "without a namespace: the tool_search_output that loaded it placed the function outside a namespace container"
	default:
		what = "without the namespace its tool_search_output loaded it in"
	}
	return fmt.Errorf("%w: message %d calls %q (call_id %q), a tool a search loaded, %s; Bedrock may reject such a call on replay, and the adapter does not add a field the provider did not return: start a new conversation, or remove the whole exchange (message %d and the tool results answering its calls) from the history",
		ErrCallWithoutNamespace, index, name, callID, what, index)
}

// filterSearchOutput keeps the namespaces of a replayed tool_search_output
// that render today exactly as they were sent (same wire name, description
// and input schema of a deferred definition of the request) and marks them
// loaded. The item is returned unchanged when nothing is dropped.
func (inv *invocation) filterSearchOutput(raw json.RawMessage) (json.RawMessage, error) {
	var item map[string]json.RawMessage
	if err := json.Unmarshal(raw, &item); err != nil {
		return nil, fmt.Errorf("replayed tool_search_output: %w", err)
	}
	var entries []json.RawMessage
	if t, ok := item["tools"]; ok && !bytes.Equal(bytes.TrimSpace(t), []byte("null")) {
		if err := json.Unmarshal(t, &entries); err != nil {
			return nil, fmt.Errorf("replayed tool_search_output tools: %w", err)
		}
	}
	kept := make([]json.RawMessage, 0, len(entries))
	for _, e := range entries {
		ok, name, err := inv.current(e)
		if err != nil {
			return nil, err
		}
		if ok {
			kept = append(kept, e)
			inv.loaded[name] = true
		}
	}
	if len(kept) == len(entries) {
		return raw, nil
	}
	t, err := json.Marshal(kept)
	if err != nil {
		return nil, fmt.Errorf("replayed tool_search_output: %w", err)
	}
	item["tools"] = t
	out, err := json.Marshal(item)
	if err != nil {
		return nil, fmt.Errorf("replayed tool_search_output: %w", err)
	}
	return out, nil
}

// current reports whether a replayed tool_search_output entry is what the
// adapter would send today for the deferred definition of that name.
func (inv *invocation) current(entry json.RawMessage) (bool, string, error) {
	var head struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(entry, &head); err != nil {
		return false, "", fmt.Errorf("replayed tool_search_output entry: %w", err)
	}
	d, ok := inv.deferred[head.Name]
	if !ok {
		return false, head.Name, nil
	}
	ns, err := namespaceTool(d)
	if err != nil {
		return false, head.Name, err
	}
	want, err := json.Marshal(ns)
	if err != nil {
		return false, head.Name, fmt.Errorf("encode namespace %q: %w", head.Name, err)
	}
	return sameJSON(entry, want), head.Name, nil
}

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(a, b []byte) bool {
	va, errA := decodeJSON(a)
	vb, errB := decodeJSON(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
