package registry

import (
	"errors"
	"regexp"
	"slices"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// FeatureFailureKind is the wire feature of a registry node that takes a
// failure's kind and recovery in post_result (error_kind, error_recovery)
// and returns them in call outcomes and records. A node lists the features
// it accepts in every lease it answers with (register, renew, drain:
// Features); a provider sends a feature's fields only to a node that lists
// it, since a node of an earlier version refuses fields it does not know.
const FeatureFailureKind = "failure_kind"

// FailureKinded is an executor's error that says what kind of failure it
// is and what it asks of the model, for the registry to carry to the
// consumer. Serve finds it in the error an Executor returns with
// errors.As, and posts kind as the call's error_kind and recovery as its
// error_recovery, each when it is valid (kind: ^[a-z][a-z0-9_]{0,63}$,
// such as tool_error, invalid_payload, tool_unavailable or a kind the
// toolset defines; recovery: correct_call, replan or finish) and the node
// lists FeatureFailureKind. Anything else posts the message alone, and the
// consumer reads a failure of kind tool_error.
//
// It is a small hook for executors of this package; the error message is
// still err.Error().
type FailureKinded interface {
	error
	FailureKind() (kind, recovery string)
}

// errorKindRule is the design's pattern of error_kind.
var errorKindRule = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// failurePost fills post's error_kind and error_recovery from err, the
// failure of a call served under a lease listing features: only when the
// node lists FeatureFailureKind and err is a FailureKinded, and each only
// when valid (an invalid one is left out, so that the node still records
// the outcome). dropped reports a kind or recovery err gave that was left
// out as invalid.
func failurePost(post *gen.PostResultPayload, err error, features []string) (dropped bool) {
	post.ErrorKind, post.ErrorRecovery = nil, nil
	var fk FailureKinded
	if !slices.Contains(features, FeatureFailureKind) || !errors.As(err, &fk) {
		return false
	}
	kind, recovery := fk.FailureKind()
	if errorKindRule.MatchString(kind) {
		post.ErrorKind = &kind
	} else if kind != "" {
		dropped = true
	}
	switch recovery {
	case "correct_call", "replan", "finish":
		post.ErrorRecovery = &recovery
	case "":
	default:
		dropped = true
	}
	return dropped
}
