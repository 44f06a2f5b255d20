package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// ProjectBounds merges the canonical bounds fields into the result JSON the
// model sees, after the result's own keys (in their order): returned,
// truncated, total (when set), refinement_hint (when set) and the next
// cursor (when set and spec declares a direct cursor contract: Cursor or
// NextCursor without ContinueWith), under spec.NextCursor or
// tools.BoundsFieldNextCursor. With ContinueWith the cursor stays in the
// runtime and is not projected; with a nil spec neither.
//
// A result that is not a JSON object is wrapped as
// {"result": <value>, <bounds fields>}. Keys of the result that collide with
// a projected field are dropped: the reported bounds are the only source of
// truth for them. The output is compact JSON.
func ProjectBounds(result json.RawMessage, b planner.Bounds, spec *tools.BoundsSpec) (json.RawMessage, error) {
	if len(bytes.TrimSpace(result)) == 0 {
		return nil, errors.New("render: project bounds: empty result")
	}
	if !json.Valid(result) {
		return nil, errors.New("render: project bounds: result is not valid JSON")
	}
	fields := boundsFields(b, spec)
	projected := make(map[string]bool, len(fields))
	for _, f := range fields {
		projected[f.key] = true
	}
	var members []member
	if trimmed := bytes.TrimSpace(result); trimmed[0] == '{' {
		ms, err := objectMembers(trimmed)
		if err != nil {
			return nil, fmt.Errorf("render: project bounds: %w", err)
		}
		for _, m := range ms {
			if !projected[m.key] {
				members = append(members, m)
			}
		}
	} else {
		members = []member{{key: "result", value: trimmed}}
	}
	members = append(members, fields...)

	var out bytes.Buffer
	out.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			out.WriteByte(',')
		}
		key, err := json.Marshal(m.key)
		if err != nil {
			return nil, fmt.Errorf("render: project bounds: %w", err)
		}
		out.Write(key)
		out.WriteByte(':')
		if err := json.Compact(&out, m.value); err != nil {
			return nil, fmt.Errorf("render: project bounds: %s: %w", m.key, err)
		}
	}
	out.WriteByte('}')
	return json.RawMessage(out.Bytes()), nil
}

// member is one key of a JSON object with its raw value.
type member struct {
	key   string
	value json.RawMessage
}

// boundsFields returns the projected fields of b, in canonical order.
func boundsFields(b planner.Bounds, spec *tools.BoundsSpec) []member {
	enc := func(v any) json.RawMessage {
		raw, _ := json.Marshal(v) // ints, bools and strings always encode
		return raw
	}
	fields := []member{
		{tools.BoundsFieldReturned, enc(b.Returned)},
		{tools.BoundsFieldTruncated, enc(b.Truncated)},
	}
	if b.Total != nil {
		fields = append(fields, member{tools.BoundsFieldTotal, enc(*b.Total)})
	}
	if b.RefinementHint != "" {
		fields = append(fields, member{tools.BoundsFieldRefinementHint, enc(b.RefinementHint)})
	}
	if name := cursorField(spec); name != "" && b.NextCursor != "" {
		fields = append(fields, member{name, enc(b.NextCursor)})
	}
	return fields
}

// cursorField returns the result field exposing the next cursor, or "" when
// the cursor is not shown to the model.
func cursorField(spec *tools.BoundsSpec) string {
	if spec == nil || spec.ContinueWith != "" || (spec.Cursor == "" && spec.NextCursor == "") {
		return ""
	}
	if spec.NextCursor != "" {
		return spec.NextCursor
	}
	return tools.BoundsFieldNextCursor
}

// objectMembers returns the members of a JSON object in document order.
func objectMembers(obj []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // '{'
		return nil, err
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", tok)
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		out = append(out, member{key, value})
	}
	return out, nil
}
