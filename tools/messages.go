package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// maxQuotedValue caps, in runes, how much of an offending value a message
// quotes.
const maxQuotedValue = 60

// maxEnumShown caps how many allowed values an enum message lists.
const maxEnumShown = 12

// leafMessage renders one violation kind as an instruction, or reports false
// for kinds that only group others.
func leafMessage(k jsonschema.ErrorKind) (string, bool) {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("must be %s (got %s)", typeList(k.Want), k.Got), true
	case *kind.Enum:
		if len(k.Want) == 1 {
			return fmt.Sprintf("must be %s (got %s)", quoteValue(k.Want[0]), quoteValue(k.Got)), true
		}
		return fmt.Sprintf("must be one of %s (got %s)", valueList(k.Want), quoteValue(k.Got)), true
	case *kind.Const:
		return fmt.Sprintf("must be %s (got %s)", quoteValue(k.Want), quoteValue(k.Got)), true
	case *kind.Maximum:
		return fmt.Sprintf("must be <= %s (got %s)", ratString(k.Want), ratString(k.Got)), true
	case *kind.Minimum:
		return fmt.Sprintf("must be >= %s (got %s)", ratString(k.Want), ratString(k.Got)), true
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be < %s (got %s)", ratString(k.Want), ratString(k.Got)), true
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be > %s (got %s)", ratString(k.Want), ratString(k.Got)), true
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %s (got %s)", ratString(k.Want), ratString(k.Got)), true
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %s long (got %d)", plural(k.Want, "character"), k.Got), true
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %s long (got %d)", plural(k.Want, "character"), k.Got), true
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %s (got %d)", plural(k.Want, "item"), k.Got), true
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %s (got %d)", plural(k.Want, "item"), k.Got), true
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %s (got %d)", plural(k.Want, "property"), k.Got), true
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %s (got %d)", plural(k.Want, "property"), k.Got), true
	case *kind.Pattern:
		return fmt.Sprintf("must match the pattern %s (got %s)", quoteValue(k.Want), quoteValue(k.Got)), true
	case *kind.Format:
		return fmt.Sprintf("must be a valid %s (got %s)", k.Want, quoteValue(k.Got)), true
	case *kind.UniqueItems:
		return fmt.Sprintf("must not contain duplicates (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1]), true
	case *kind.Contains:
		return "must contain at least one item matching the item schema", true
	case *kind.MinContains:
		return fmt.Sprintf("must contain at least %s matching the item schema (got %d)", plural(k.Want, "item"), len(k.Got)), true
	case *kind.MaxContains:
		return fmt.Sprintf("must contain at most %s matching the item schema (got %d)", plural(k.Want, "item"), len(k.Got)), true
	case *kind.AdditionalItems:
		return fmt.Sprintf("must have at most %s", plural(k.Count, "item")), true
	case *kind.FalseSchema:
		return "is not allowed: remove it", true
	case *kind.Not:
		return "must not match the excluded schema", true
	case *kind.InvalidJsonValue:
		return fmt.Sprintf("is not a JSON value (%T)", k.Value), true
	}
	return "", false
}

// typeList renders JSON types as "a string", "a string or null", "an
// integer, a string or null".
func typeList(types []string) string {
	out := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "null":
			out[i] = "null"
		case "object", "array", "integer":
			out[i] = "an " + t
		default:
			out[i] = "a " + t
		}
	}
	if len(out) <= 1 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// valueList renders allowed values as `"a", "b", "c"`, shortened when long.
func valueList(vs []any) string {
	n := min(len(vs), maxEnumShown)
	out := make([]string, n)
	for i := range n {
		out[i] = quoteValue(vs[i])
	}
	s := strings.Join(out, ", ")
	if len(vs) > n {
		s += fmt.Sprintf(", … (%d more)", len(vs)-n)
	}
	return s
}

// quoteValue renders a JSON value compactly, cut to maxQuotedValue runes.
func quoteValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	var s string
	if err := enc.Encode(v); err != nil {
		s = fmt.Sprint(v)
	} else {
		s = strings.TrimSuffix(b.String(), "\n")
	}
	if utf8.RuneCountInString(s) > maxQuotedValue {
		s = string([]rune(s)[:maxQuotedValue]) + "…"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}
