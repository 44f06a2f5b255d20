package registry

import (
	"slices"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
)

// FeatureFailureKind is the wire feature of a registry node that takes a
// failure's kind and recovery in post_result (error_kind, error_recovery)
// and returns them in call outcomes and records. A node lists the features
// it accepts in every lease it answers with (register, renew, drain:
// Features); a provider sends a feature's fields only to a node that lists
// it, since a node of an earlier version refuses fields it does not know.
const FeatureFailureKind = "failure_kind"

// failurePost fills post's error_kind and error_recovery from f, the
// failure of a call served under a lease listing features: only when the
// node lists FeatureFailureKind, and each only when valid (an invalid one
// is left out, so that the node still records the outcome). dropped
// reports a kind or recovery f gave that was left out as invalid.
func failurePost(post *gen.PostResultPayload, f *toolcall.Failure, features []string) (dropped bool) {
	post.ErrorKind, post.ErrorRecovery = nil, nil
	if !slices.Contains(features, FeatureFailureKind) {
		return false
	}
	if toolcall.ValidKind(f.Code) {
		kind := string(f.Code)
		post.ErrorKind = &kind
	} else if f.Code != "" {
		dropped = true
	}
	switch {
	case f.Recovery.Valid():
		recovery := string(f.Recovery)
		post.ErrorRecovery = &recovery
	case f.Recovery != "":
		dropped = true
	}
	return dropped
}
