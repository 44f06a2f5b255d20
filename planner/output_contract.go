package planner

import (
	"fmt"
	"strings"
)

// OutputContractError reports a model's final typed answer (a completion:
// a [model.Request] with a StructuredOutput) that breaks its declared
// contract: the text is not one JSON document, it does not meet the
// schema, the model was cut off at its token limit, or it called tools
// instead of answering.
//
// It is not recoverable ([OutputContractError.Recoverable] is false): no
// correction request is made to the model, and the caller gets no value.
// The schema was already sent to the provider to constrain its decoding;
// an answer that still breaks it is a provider or contract failure to
// report, not a turn to retry.
type OutputContractError struct {
	// Completion is the completion's name (the StructuredOutput name).
	Completion string
	// Raw is the answer's text as the model produced it (possibly empty).
	Raw string
	// Violations say what is wrong, one per entry ("path: what to fix" for
	// schema violations).
	Violations []string
}

// Error names the completion and every violation.
func (e *OutputContractError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "planner: completion %q: the model's answer breaks its output contract", e.Completion)
	switch len(e.Violations) {
	case 0:
	case 1:
		b.WriteString(": ")
		b.WriteString(e.Violations[0])
	default:
		b.WriteString(":")
		for _, v := range e.Violations {
			b.WriteString("\n  ")
			b.WriteString(v)
		}
	}
	return b.String()
}

// Recoverable reports false: an answer that breaks its contract is never
// sent back to the model for correction.
func (e *OutputContractError) Recoverable() bool { return false }
