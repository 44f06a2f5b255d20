package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/internal/jsonobj"
	"github.com/quiver-go/quiver/tools"
)

// ProjectBounds merges the canonical bounds fields into the result JSON the
// model sees, after the result's own keys (in their order): returned,
// truncated, total (when set), refinement_hint (when set) and the next
// cursor (when set and spec declares a direct cursor contract: Cursor or
// NextCursor without ContinueWith), under spec.NextCursor or
// [tools.BoundsFieldNextCursor]. With ContinueWith the cursor stays with the
// caller and is not projected; with a nil spec neither.
//
// A result that is not a JSON object is wrapped as
// {"result": <value>, <bounds fields>}. Keys of the result that collide with
// a projected field are dropped: the reported bounds are the only source of
// truth for them. The output is compact JSON.
func ProjectBounds(result json.RawMessage, b Bounds, spec *tools.BoundsSpec) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(result)
	if len(trimmed) == 0 {
		return nil, errors.New("project bounds: empty result")
	}
	if !json.Valid(trimmed) {
		return nil, errors.New("project bounds: result is not valid JSON")
	}
	fields := boundsFields(b, cursorField(spec))
	members, err := objectOrWrapped(trimmed)
	if err != nil {
		return nil, fmt.Errorf("project bounds: %w", err)
	}
	for _, f := range fields {
		members = jsonobj.Without(members, f.Key)
	}
	members = append(members, fields...)
	for i, m := range members {
		var compact bytes.Buffer
		if err := json.Compact(&compact, m.Value); err != nil {
			return nil, fmt.Errorf("project bounds: %s: %w", m.Key, err)
		}
		members[i].Value = compact.Bytes()
	}
	return jsonobj.Encode(members), nil
}

// boundsFields returns the projected fields of b, in canonical order; the
// cursor under cursor, or not at all when cursor is "".
func boundsFields(b Bounds, cursor string) []jsonobj.Member {
	enc := func(v any) json.RawMessage {
		raw, _ := json.Marshal(v) // ints, bools and strings always encode
		return raw
	}
	fields := []jsonobj.Member{
		{Key: tools.BoundsFieldReturned, Value: enc(b.Returned)},
		{Key: tools.BoundsFieldTruncated, Value: enc(b.Truncated)},
	}
	if b.Total != nil {
		fields = append(fields, jsonobj.Member{Key: tools.BoundsFieldTotal, Value: enc(*b.Total)})
	}
	if b.RefinementHint != "" {
		fields = append(fields, jsonobj.Member{Key: tools.BoundsFieldRefinementHint, Value: enc(b.RefinementHint)})
	}
	if cursor != "" && b.NextCursor != "" {
		fields = append(fields, jsonobj.Member{Key: cursor, Value: enc(b.NextCursor)})
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

// resultCursorField is the result field a provider writes its next cursor
// in, whatever the model is shown.
func resultCursorField(spec *tools.BoundsSpec) string {
	if spec != nil && spec.NextCursor != "" {
		return spec.NextCursor
	}
	return tools.BoundsFieldNextCursor
}

// BoundsFromResult reads a bounded tool's bounds from the canonical fields
// its provider wrote in the result — a registry carries the result only —
// and returns the result without them: "returned" (required), "truncated",
// "total", "refinement_hint", and the cursor in "next_cursor" or the field
// the spec's NextCursor names. A result without them is a missing_bounds
// failure. [WithBoundsFields] is its inverse.
func BoundsFromResult(spec tools.ToolSpec, result json.RawMessage) *Result {
	ms, err := jsonobj.Members(bytes.TrimSpace(result))
	if err != nil {
		return &Result{Failure: NotBoundedObject(spec.Name)}
	}
	var b Bounds
	cursor := resultCursorField(spec.Bounds)
	returned, _ := jsonobj.Get(ms, tools.BoundsFieldReturned)
	if err := json.Unmarshal(returned, &b.Returned); err != nil {
		return &Result{Failure: NoReturnedCount(spec.Name)}
	}
	if raw, ok := jsonobj.Get(ms, tools.BoundsFieldTruncated); ok {
		_ = json.Unmarshal(raw, &b.Truncated)
	}
	if raw, ok := jsonobj.Get(ms, tools.BoundsFieldTotal); ok {
		var total int
		if json.Unmarshal(raw, &total) == nil {
			b.Total = &total
		}
	}
	if raw, ok := jsonobj.Get(ms, tools.BoundsFieldRefinementHint); ok {
		_ = json.Unmarshal(raw, &b.RefinementHint)
	}
	if raw, ok := jsonobj.Get(ms, cursor); ok {
		_ = json.Unmarshal(raw, &b.NextCursor)
	}
	rest := jsonobj.Without(ms, tools.BoundsFieldReturned, tools.BoundsFieldTruncated, tools.BoundsFieldTotal, tools.BoundsFieldRefinementHint, cursor)
	return &Result{Result: jsonobj.Encode(rest), Bounds: &b}
}

// WithBoundsFields writes b into result's canonical bounds fields, the
// cursor included (under the spec's NextCursor or "next_cursor"), so that
// [BoundsFromResult] reads b back: how a registry provider carries the
// bounds its executor returned beside the result. A result that is not a
// JSON object is wrapped as {"result": <value>, …}.
func WithBoundsFields(spec tools.ToolSpec, result json.RawMessage, b Bounds) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(result)
	if len(trimmed) == 0 {
		trimmed = []byte(`{}`)
	}
	if !json.Valid(trimmed) {
		return nil, errors.New("bounds fields: result is not valid JSON")
	}
	members, err := objectOrWrapped(trimmed)
	if err != nil {
		return nil, fmt.Errorf("bounds fields: %w", err)
	}
	for _, f := range boundsFields(b, resultCursorField(spec.Bounds)) {
		members = jsonobj.Set(members, f.Key, f.Value)
	}
	return jsonobj.Encode(members), nil
}

// objectOrWrapped returns the members of a valid JSON value: an object's
// own, in order, or {"result": value} for any other value.
func objectOrWrapped(value []byte) ([]jsonobj.Member, error) {
	if value[0] != '{' {
		return []jsonobj.Member{{Key: "result", Value: value}}, nil
	}
	return jsonobj.Members(value)
}
