package registry

import (
	"errors"
	"fmt"
	"testing"

	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
)

// kindedErr is an executor's failure of kind with recovery.
func kindedErr(kind, recovery string) *toolcall.Failure {
	return &toolcall.Failure{Code: toolcall.Kind(kind), Recovery: toolcall.Recovery(recovery), Message: "kinded failure"}
}

// The provider posts a failure's kind and recovery only when its lease
// lists failure_kind, and each only when the wire can carry it; otherwise
// the message goes alone.
func TestFailurePostNeedsTheFeature(t *testing.T) {
	feature := []string{"something_else", FeatureFailureKind}
	city := kindedErr("unknown_city", "correct_call")
	for _, tc := range []struct {
		name                   string
		features               []string
		err                    *toolcall.Failure
		wantKind, wantRecovery string
		wantDropped            bool
	}{
		{name: "an older node lists no features", features: nil, err: city},
		{name: "a node without failure_kind", features: []string{"something_else"}, err: city},
		{name: "a node with failure_kind", features: feature, err: city, wantKind: "unknown_city", wantRecovery: "correct_call"},
		{name: "a plain error", features: feature, err: toolcall.ToolFailed(errors.New("boom")), wantKind: "tool_error", wantRecovery: "replan"},
		{name: "a kind without a recovery", features: feature, err: kindedErr("tool_unavailable", ""), wantKind: "tool_unavailable"},
		{name: "a recovery without a kind", features: feature, err: kindedErr("", "finish"), wantRecovery: "finish"},
		{name: "neither", features: feature, err: kindedErr("", "")},
		{name: "a kind the wire cannot carry", features: feature, err: kindedErr("Unknown City", "replan"), wantRecovery: "replan", wantDropped: true},
		{name: "a kind over 64 bytes", features: feature, err: kindedErr("k"+fmt.Sprintf("%064d", 0), ""), wantDropped: true},
		{name: "a recovery the wire cannot carry", features: feature, err: kindedErr("unknown_city", "retry"), wantKind: "unknown_city", wantDropped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stale := "stale"
			post := &gen.PostResultPayload{ErrorKind: &stale, ErrorRecovery: &stale}
			dropped := failurePost(post, tc.err, tc.features)
			got := func(s *string) string {
				if s == nil {
					return ""
				}
				return *s
			}
			if got(post.ErrorKind) != tc.wantKind || got(post.ErrorRecovery) != tc.wantRecovery || dropped != tc.wantDropped {
				t.Fatalf("error_kind %q error_recovery %q dropped %v, want %q %q %v",
					got(post.ErrorKind), got(post.ErrorRecovery), dropped, tc.wantKind, tc.wantRecovery, tc.wantDropped)
			}
			if (post.ErrorKind != nil && *post.ErrorKind == "") || (post.ErrorRecovery != nil && *post.ErrorRecovery == "") {
				t.Fatalf("an empty field is posted: %+v", post)
			}
		})
	}
}
