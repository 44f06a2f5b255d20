package tools

import (
	"strings"
	"unicode"
)

// InjectSource says where the runtime takes an injected field's value from.
type InjectSource string

// The injected-field sources.
const (
	// InjectMeta fills the field from the call's CallMeta.
	InjectMeta InjectSource = "meta"
	// InjectLabel fills the field from the run label whose key is the
	// field's name, as declared.
	InjectLabel InjectSource = "label"
)

// MetaField names one [CallMeta] field.
type MetaField string

// The [CallMeta] fields a meta-backed injected field can read.
const (
	MetaRunID            MetaField = "run_id"
	MetaSessionID        MetaField = "session_id"
	MetaTurnID           MetaField = "turn_id"
	MetaToolCallID       MetaField = "tool_call_id"
	MetaParentToolCallID MetaField = "parent_tool_call_id"
)

// metaWords lists each MetaField's words, as ClassifyInjected compares them.
var metaWords = [...]struct {
	field MetaField
	words string
}{
	{MetaRunID, "run id"},
	{MetaSessionID, "session id"},
	{MetaTurnID, "turn id"},
	{MetaToolCallID, "tool call id"},
	{MetaParentToolCallID, "parent tool call id"},
}

// InjectedField is a payload field the runtime fills at execution time. It
// is hidden from the model: absent from the model-facing payload schema and
// its required list.
type InjectedField struct {
	// Name is the field's JSON name in the payload.
	Name string
	// Source says where the value comes from.
	Source InjectSource
	// Meta is the [CallMeta] field read when [InjectedField.Source] is
	// [InjectMeta]; "" otherwise.
	Meta MetaField
	// Schema is the field's own schema (a string schema), used to validate a
	// label's value; zero when the generator validates in code.
	Schema TypeSpec
}

// Clone returns a deep copy of f.
func (f InjectedField) Clone() InjectedField {
	f.Schema = f.Schema.Clone()
	return f
}

// ClassifyInjected applies the seed rule to an injected field's name: a name
// whose Go form (its words, split at '_', '-', '.', spaces and case changes,
// compared case-insensitively) is RunID, SessionID, TurnID, ToolCallID or
// ParentToolCallID is meta-backed — run_id, runId, RunID all read
// [CallMeta.RunID]; any other name is label-backed, keyed by the name as is.
func ClassifyInjected(name string) InjectedField {
	w := strings.Join(nameWords(name), " ")
	for _, m := range metaWords {
		if w == m.words {
			return InjectedField{Name: name, Source: InjectMeta, Meta: m.field}
		}
	}
	return InjectedField{Name: name, Source: InjectLabel}
}

// nameWords splits a field name into lower-case words the way Go naming
// sees them: at non-alphanumeric runes, at lower-to-upper changes, and before
// the last upper-case rune of an acronym followed by a lower-case rune
// (HTTPServer → http, server).
func nameWords(name string) []string {
	rs := []rune(name)
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return words
}

// Value returns the field's value for one call: the [CallMeta] field for a
// meta-backed field, the run label for a label-backed one. ok is false when
// the value is missing or empty.
func (f InjectedField) Value(meta CallMeta, labels map[string]string) (string, bool) {
	var v string
	switch f.Source {
	case InjectMeta:
		v = meta.get(f.Meta)
	case InjectLabel:
		v = labels[f.Name]
	}
	return v, v != ""
}

// CallMeta identifies one tool call within its run. It lives in tools so
// generated Decode(payload, meta, labels) functions need no runtime import.
type CallMeta struct {
	// RunID identifies the run.
	RunID string
	// SessionID identifies the session the run belongs to.
	SessionID string
	// TurnID identifies the turn within the session.
	TurnID string
	// ToolCallID identifies this tool call.
	ToolCallID string
	// ParentToolCallID identifies the tool call that started this run when it
	// runs as a tool of another agent, or "".
	ParentToolCallID string
	// ParentRunID identifies the run that made that call, or "". It is not
	// an injected field's source: the seed's rule names five meta fields.
	ParentRunID string
}

// Field returns the value a meta-backed injected field named name receives
// (see [ClassifyInjected]). ok is false when name is label-backed.
func (m CallMeta) Field(name string) (string, bool) {
	f := ClassifyInjected(name)
	if f.Source != InjectMeta {
		return "", false
	}
	return m.get(f.Meta), true
}

func (m CallMeta) get(f MetaField) string {
	switch f {
	case MetaRunID:
		return m.RunID
	case MetaSessionID:
		return m.SessionID
	case MetaTurnID:
		return m.TurnID
	case MetaToolCallID:
		return m.ToolCallID
	case MetaParentToolCallID:
		return m.ParentToolCallID
	}
	return ""
}
