package tools

import (
	"cmp"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ErrSchemaViolation is matched ([errors.Is]) by every *ValidationError.
var ErrSchemaViolation = errors.New("tools: value does not match its schema")

// ValidationError reports every way a JSON value breaks its schema. Its
// message is meant for the model that produced the value: one violation per
// line, "path: what to fix".
type ValidationError struct {
	// Violations lists every violation, sorted by path then message, without
	// repeats.
	Violations []Violation
}

// Violation is one way a value breaks its schema.
type Violation struct {
	// Path locates the offending value: "" for the root, "limit",
	// "filters[2].op", `meta["a.b"]`.
	Path string
	// Message says what the value must be, and what it was.
	Message string
	// Missing marks a required property that is absent ([Violation.Path] names
	// it). Runtimes route these through their missing-fields policy.
	Missing bool
}

// String renders the violation as "path: message", with "(root)" as the
// root's path.
func (v Violation) String() string {
	p := v.Path
	if p == "" {
		p = "(root)"
	}
	return p + ": " + v.Message
}

// Error returns the violations, one per line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		lines[i] = v.String()
	}
	return strings.Join(lines, "\n")
}

// MissingOnly reports whether every violation is a missing required
// property, and returns their paths.
func (e *ValidationError) MissingOnly() ([]string, bool) {
	var paths []string
	for _, v := range e.Violations {
		if !v.Missing {
			return nil, false
		}
		paths = append(paths, v.Path)
	}
	return paths, len(paths) > 0
}

// Is reports whether target is [ErrSchemaViolation].
func (e *ValidationError) Is(target error) bool { return target == ErrSchemaViolation }

// newValidationError flattens a jsonschema error tree into violations.
func newValidationError(cs *compiledSchema, value any, err error) *ValidationError {
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return &ValidationError{Violations: []Violation{{Message: err.Error()}}}
	}
	// The library's causes follow map order: fix it, so that summaries
	// joining several causes (alternatives, property names) read the same
	// every time.
	stabilizeTree(verr, value)
	r := renderer{cs: cs, value: value}
	vs := r.walk(verr)
	if len(vs) == 0 {
		vs = []Violation{{Message: verr.Error()}}
	}
	sortViolations(vs)
	return &ValidationError{Violations: slices.Compact(vs)}
}

// sortViolations sorts violations by path, then message.
func sortViolations(vs []Violation) {
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
}

// renderer turns jsonschema errors into violations a model can act on.
type renderer struct {
	cs    *compiledSchema
	value any
}

// walk returns the violations of e's subtree: leaves become violations;
// alternatives (anyOf, oneOf) and property names become one summary each.
func (r renderer) walk(e *jsonschema.ValidationError) []Violation {
	at := func(loc []string, msg string) Violation { return Violation{Path: r.path(loc), Message: msg} }
	child := func(name string) []string { return append(slices.Clip(e.InstanceLocation), name) }
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		out := make([]Violation, len(k.Missing))
		for i, m := range k.Missing {
			out[i] = at(child(m), "is required")
			out[i].Missing = true
		}
		return out
	case *kind.DependentRequired:
		return r.dependency(e, k.Prop, k.Missing)
	case *kind.Dependency:
		if len(k.Missing) > 0 {
			return r.dependency(e, k.Prop, k.Missing)
		}
	case *kind.AdditionalProperties:
		msg := "is not an allowed property: remove it"
		if allowed := r.cs.allowedProperties(e.SchemaURL); len(allowed) > 0 {
			msg += " (allowed: " + strings.Join(allowed, ", ") + ")"
		}
		out := make([]Violation, len(k.Properties))
		for i, p := range k.Properties {
			out[i] = at(child(p), msg)
		}
		return out
	case *kind.AnyOf:
		return []Violation{at(e.InstanceLocation, "must match at least one of the allowed alternatives: "+r.alternatives(e))}
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			return []Violation{at(e.InstanceLocation, "must match exactly one alternative but matches alternatives "+joinInts(k.Subschemas, 1))}
		}
		return []Violation{at(e.InstanceLocation, "must match exactly one of the allowed alternatives: "+r.alternatives(e))}
	case *kind.PropertyNames:
		var msgs []string
		for _, c := range e.Causes {
			for _, v := range r.walk(c) {
				msgs = append(msgs, v.Message)
			}
		}
		return []Violation{at(e.InstanceLocation, "property name "+quoteValue(k.Property)+" is not allowed: "+strings.Join(msgs, "; "))}
	}
	if msg, ok := leafMessage(e.ErrorKind); ok {
		return []Violation{at(e.InstanceLocation, msg)}
	}
	if len(e.Causes) == 0 {
		return []Violation{at(e.InstanceLocation, e.ErrorKind.LocalizedString(message.NewPrinter(language.English)))}
	}
	var out []Violation
	for _, c := range e.Causes {
		out = append(out, r.walk(c)...)
	}
	return out
}

func (r renderer) dependency(e *jsonschema.ValidationError, prop string, missing []string) []Violation {
	out := make([]Violation, len(missing))
	for i, m := range missing {
		loc := append(slices.Clip(e.InstanceLocation), m)
		out[i] = Violation{Path: r.path(loc), Message: "is required when " + quoteValue(prop) + " is present"}
	}
	return out
}

// alternatives summarizes why each alternative of an anyOf/oneOf failed, as
// "(1) ...; (2) ...". Paths inside an alternative are given relative to the
// value the alternatives apply to.
func (r renderer) alternatives(e *jsonschema.ValidationError) string {
	base := r.path(e.InstanceLocation)
	parts := make([]string, 0, len(e.Causes))
	for i, c := range e.Causes {
		vs := r.walk(c)
		sortViolations(vs)
		vs = slices.Compact(vs)
		msgs := make([]string, len(vs))
		for j, v := range vs {
			rel := strings.TrimPrefix(strings.TrimPrefix(v.Path, base), ".")
			if rel == "" {
				msgs[j] = v.Message
			} else {
				msgs[j] = rel + ": " + v.Message
			}
		}
		parts = append(parts, "("+strconv.Itoa(i+1)+") "+strings.Join(msgs, ", "))
	}
	return strings.Join(parts, "; ")
}

// path renders an instance location, using the value to tell array indexes
// from object keys.
func (r renderer) path(loc []string) string {
	var b strings.Builder
	cur := r.value
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(c) {
				b.WriteString("[" + tok + "]")
				cur = c[i]
				continue
			}
		case map[string]any:
			cur = c[tok]
		default:
			cur = nil
		}
		if identLike(tok) {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		} else {
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
	}
	return b.String()
}

// identLike reports whether a key can be written after a dot.
func identLike(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

func joinInts(is []int, offset int) string {
	s := make([]string, len(is))
	for i, v := range is {
		s[i] = strconv.Itoa(v + offset)
	}
	return strings.Join(s, " and ")
}

// ratString renders a schema number: exactly for integers and short
// decimals, as a float otherwise.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(6)
	if exact, ok := new(big.Rat).SetString(s); ok && exact.Cmp(r) == 0 {
		return strings.TrimRight(s, "0")
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
