package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/quiver-go/quiver/tools"
)

// The injected fields of a registry call (docs/registry.md, "Injected
// fields"): the consumer's runtime fills them from its run's labels and
// the call's meta, and sends their values in call_resolved_tool's injected
// member, beside a payload that never holds them (tools.CanonicalPayload
// refuses them there, whoever sends them). Any key that may call tools
// (consumer, admin) may send injected: the consumer's runtime is trusted
// with its run's labels in process too, and a model never writes this
// member. The registry checks the values' shape here and hands the
// provider the payload with them filled in.

// injectedJSON is a call's injected member as canonical JSON (duplicate
// keys and oversized values refused), nil when the call sent none.
func injectedJSON(tool tools.Ident, v any, limits tools.PayloadLimits) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := rawAny(v)
	if err != nil {
		return nil, fmt.Errorf("injected: %w", err)
	}
	canonical, err := tools.CanonicalJSON(tool, raw, limits)
	if err != nil {
		return nil, fmt.Errorf("injected: %w", err)
	}
	return canonical, nil
}

// digestInput is what a call's request digest covers: the canonical
// payload, then, when the call sent injected values, a NUL byte and their
// canonical JSON. Canonical JSON never holds a NUL byte, so a call with
// injected values never shares a digest with one without, and a call that
// sent no injected member digests as before.
func digestInput(payload, injected []byte) []byte {
	if injected == nil {
		return payload
	}
	return append(append(slices.Clone(payload), 0), injected...)
}

// fillInjected checks a call's injected values against the tool's
// injected fields — every declared field, no other key, each a string, a
// label-backed one satisfying the field's schema, as the consumer's
// injection checks it (tools.InjectFields) — and returns the canonical
// payload with them filled in: what the provider receives. Messages name
// fields, never values, which are the consumer's.
func fillInjected(spec tools.ToolSpec, canonical, injected json.RawMessage) (json.RawMessage, error) {
	if len(spec.Inject) == 0 {
		if injected != nil {
			return nil, fmt.Errorf("tool %s declares no injected fields: drop injected from the call", spec.Name)
		}
		return canonical, nil
	}
	names := make([]string, len(spec.Inject))
	for i, f := range spec.Inject {
		names[i] = strconv.Quote(f.Name)
	}
	declared := strings.Join(names, ", ")
	if injected == nil {
		return nil, fmt.Errorf("tool %s has injected fields (%s) that the consumer fills from its run: send their values in injected (registry.CallTool does), never in the payload", spec.Name, declared)
	}
	var obj map[string]json.RawMessage
	if err := tools.Unmarshal(injected, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf(`injected must be a JSON object with one string per injected field of %s (%s), such as {"tenant_id": "t-acme"}`, spec.Name, declared)
	}
	var probs []string
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.ContainsFunc(spec.Inject, func(f tools.InjectedField) bool { return f.Name == k }) {
			probs = append(probs, fmt.Sprintf("injected.%s: not an injected field of %s (its injected fields: %s): remove it", k, spec.Name, declared))
		}
	}
	var meta tools.CallMeta
	labels := map[string]string{}
	for _, f := range spec.Inject {
		raw, ok := obj[f.Name]
		if !ok {
			probs = append(probs, fmt.Sprintf("injected.%s: missing: send every injected field of %s", f.Name, spec.Name))
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			probs = append(probs, fmt.Sprintf("injected.%s: must be a JSON string", f.Name))
			continue
		}
		switch f.Source {
		case tools.InjectMeta:
			setMeta(&meta, f.Meta, v)
		default:
			if v == "" {
				probs = append(probs, fmt.Sprintf("injected.%s: empty: the consumer fills it from its run label %s, which must be set", f.Name, strconv.Quote(f.Name)))
				continue
			}
			if !f.Schema.IsZero() && f.Schema.Validate(raw) != nil {
				probs = append(probs, fmt.Sprintf("injected.%s: does not satisfy the field's schema in the tool's declaration: the consumer must pass a valid run label %s", f.Name, strconv.Quote(f.Name)))
				continue
			}
			labels[f.Name] = v
		}
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("the injected values of %s were refused:\n%s", spec.Name, strings.Join(probs, "\n"))
	}
	return tools.InjectFields(spec, canonical, meta, labels)
}

// setMeta sets the CallMeta field f.
func setMeta(m *tools.CallMeta, f tools.MetaField, v string) {
	switch f {
	case tools.MetaRunID:
		m.RunID = v
	case tools.MetaSessionID:
		m.SessionID = v
	case tools.MetaTurnID:
		m.TurnID = v
	case tools.MetaToolCallID:
		m.ToolCallID = v
	case tools.MetaParentToolCallID:
		m.ParentToolCallID = v
	}
}
