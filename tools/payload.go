package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Default bounds of one call's arguments as a model wrote them (see
// [PayloadLimits]). They are far above what any tool contract needs and far
// below what would cost real memory or time.
const (
	// DefaultMaxPayloadBytes bounds a payload's encoded size: 1 MiB.
	DefaultMaxPayloadBytes = 1 << 20
	// DefaultMaxPayloadDepth bounds the nesting of objects and arrays.
	DefaultMaxPayloadDepth = 64
)

// PayloadLimits bounds one call's arguments as a model wrote them. A zero
// field takes its default ([DefaultMaxPayloadBytes], [DefaultMaxPayloadDepth]).
type PayloadLimits struct {
	// MaxBytes bounds the payload's size in bytes.
	MaxBytes int `json:"max_bytes,omitempty"`
	// MaxDepth bounds how deeply objects and arrays nest; the payload
	// object itself is depth 1.
	MaxDepth int `json:"max_depth,omitempty"`
}

// WithDefaults returns l with every zero field set to its default.
func (l PayloadLimits) WithDefaults() PayloadLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxPayloadBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxPayloadDepth
	}
	return l
}

// ErrInvalidPayload is matched ([errors.Is]) by every *PayloadError.
var ErrInvalidPayload = errors.New("tools: invalid payload")

// PayloadProblemKind says why a payload was refused before its schema was
// checked.
type PayloadProblemKind string

// The payload problems [CanonicalPayload] reports.
const (
	// PayloadTooLarge: the payload exceeds PayloadLimits.MaxBytes.
	PayloadTooLarge PayloadProblemKind = "too_large"
	// PayloadTooDeep: objects and arrays nest beyond PayloadLimits.MaxDepth.
	PayloadTooDeep PayloadProblemKind = "too_deep"
	// PayloadMalformed: not exactly one well-formed JSON value in UTF-8.
	PayloadMalformed PayloadProblemKind = "malformed"
	// PayloadNotObject: the payload is not a JSON object.
	PayloadNotObject PayloadProblemKind = "not_object"
	// PayloadDuplicateKey: an object names one key twice.
	PayloadDuplicateKey PayloadProblemKind = "duplicate_key"
	// PayloadKeyVariant: a key differs from a declared property only by
	// case or Unicode folding ("ORDER_ID", "uſer_id").
	PayloadKeyVariant PayloadProblemKind = "key_variant"
	// PayloadInjectedField: the payload sets, in any spelling, a field the
	// runtime injects.
	PayloadInjectedField PayloadProblemKind = "injected_field"
)

// PayloadProblem is one reason a payload was refused.
type PayloadProblem struct {
	// Kind classifies the problem.
	Kind PayloadProblemKind
	// Path locates it, in [ValidationError]'s notation ("" for the root).
	Path string
	// Message says what to fix. It names keys and limits, never values.
	Message string
}

// String renders the problem as "path: message", with "(root)" for the root.
func (p PayloadProblem) String() string {
	return Violation{Path: p.Path, Message: p.Message}.String()
}

// PayloadError reports a payload refused by [CanonicalPayload]: every key
// problem at once, or the one structural problem (size, depth, syntax) that
// stopped parsing. Its message is written for the model that sent the call.
type PayloadError struct {
	// Tool is the tool the payload was sent to.
	Tool Ident
	// Problems lists the problems, sorted by path.
	Problems []PayloadProblem
}

// Error returns the problems, one per line, after a header naming the tool.
func (e *PayloadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("tools: invalid payload for %s:\n%s", e.Tool, strings.Join(lines, "\n"))
}

// Is reports whether target is [ErrInvalidPayload].
func (e *PayloadError) Is(target error) bool { return target == ErrInvalidPayload }

// Has reports whether any problem is of kind k.
func (e *PayloadError) Has(k PayloadProblemKind) bool {
	for _, p := range e.Problems {
		if p.Kind == k {
			return true
		}
	}
	return false
}

// CanonicalPayload parses a payload a model wrote for spec's tool, once, and
// returns its canonical encoding: compact, object keys sorted, strings
// re-escaped, numbers exactly as written. It is the one form that
// confirmation prompts render, that runtimes record and hand to executors,
// and that [Decode] reads. An empty payload is the empty object.
//
// It refuses, as a *PayloadError, a payload that
//   - exceeds limits (size is checked before any parsing);
//   - is not one well-formed JSON object in valid UTF-8;
//   - names a key twice in one object;
//   - has a key that matches a property declared at that place in the
//     payload schema only by case or Unicode folding (encoding/json would
//     let it overwrite the declared one);
//   - sets an injected field, in any spelling: injected values come from
//     the runtime, never from the model.
//
// Properties the schema does not declare are left to the schema, which
// refuses them when it is closed (additionalProperties: false).
func CanonicalPayload(spec ToolSpec, payload []byte, limits PayloadLimits) (json.RawMessage, error) {
	if len(strings.TrimSpace(string(payload))) == 0 {
		payload = []byte("{}")
	}
	v, err := parseBounded(spec.Name, payload, limits)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, payloadErr(spec.Name, PayloadProblem{Kind: PayloadNotObject, Message: "the arguments must be a JSON object such as {\"name\": \"value\"}"})
	}
	if probs := checkKeys(spec, obj); len(probs) > 0 {
		return nil, &PayloadError{Tool: spec.Name, Problems: probs}
	}
	return marshalVerbatim(obj)
}

// CanonicalJSON returns the canonical encoding of one JSON value — the
// form [CanonicalPayload] gives payloads — without reading any contract:
// compact, object keys sorted, strings re-escaped, numbers exactly as
// written. It refuses what CanonicalPayload refuses before it reads the
// contract (limits, syntax, invalid UTF-8, a key named twice in one
// object), as a *PayloadError naming tool. The registry digests call
// payloads with it, before it knows which contract a retry was made under.
func CanonicalJSON(tool Ident, data []byte, limits PayloadLimits) (json.RawMessage, error) {
	v, err := parseBounded(tool, data, limits)
	if err != nil {
		return nil, err
	}
	return marshalVerbatim(v)
}

// parseBounded checks data against limits, then parses it strictly.
func parseBounded(tool Ident, data []byte, limits PayloadLimits) (any, error) {
	limits = limits.WithDefaults()
	if err := BoundPayload(tool, data, limits); err != nil {
		return nil, err
	}
	v, prob := parseStrict(data)
	if prob != nil {
		return nil, payloadErr(tool, *prob)
	}
	return v, nil
}

// BoundPayload checks payload against limits without parsing it: its size,
// then its nesting depth by a scan that allocates nothing. It is what a
// runtime applies to a model's response before keeping any of it, so a
// hostile argument costs one pass over bytes already received. Failures are
// *PayloadError values of kind [PayloadTooLarge] or [PayloadTooDeep].
func BoundPayload(tool Ident, payload []byte, limits PayloadLimits) error {
	limits = limits.WithDefaults()
	if len(payload) > limits.MaxBytes {
		return payloadErr(tool, PayloadProblem{Kind: PayloadTooLarge, Message: fmt.Sprintf(
			"the arguments are %d bytes; the limit is %d bytes: send less data per call (split the work, or pass a reference instead of the content)",
			len(payload), limits.MaxBytes)})
	}
	if nestingExceeds(payload, limits.MaxDepth) {
		return payloadErr(tool, PayloadProblem{Kind: PayloadTooDeep, Message: fmt.Sprintf(
			"objects and arrays nest more than %d levels deep: flatten the arguments", limits.MaxDepth)})
	}
	return nil
}

// nestingExceeds reports whether brackets outside strings nest deeper than
// max. Malformed input is left to the parser; this only bounds its work.
func nestingExceeds(data []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			if depth++; depth > max {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// PayloadDigest returns the digest of a canonical payload, written
// "sha256:<hex>": what a confirmation prompt shows and its decision must
// carry back.
func PayloadDigest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func payloadErr(tool Ident, p PayloadProblem) *PayloadError {
	return &PayloadError{Tool: tool, Problems: []PayloadProblem{p}}
}
