package bedrock

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/quiver-go/quiver/model"
)

// TestErrorsAreMappedRetryableOrPermanent: Bedrock's throttling,
// unavailability and not-ready answers are *APIError values whose
// Temporary is true; validation and access errors are permanent. The SDK's
// exception type stays reachable through errors.As.
func TestErrorsAreMappedRetryableOrPermanent(t *testing.T) {
	cases := []struct {
		status    int
		errorType string
		temporary bool
		as        func(error) bool
	}{
		{http.StatusTooManyRequests, "ThrottlingException", true, func(err error) bool { var e *types.ThrottlingException; return errors.As(err, &e) }},
		{http.StatusServiceUnavailable, "ServiceUnavailableException", true, func(err error) bool { var e *types.ServiceUnavailableException; return errors.As(err, &e) }},
		{http.StatusTooManyRequests, "ModelNotReadyException", true, func(err error) bool { var e *types.ModelNotReadyException; return errors.As(err, &e) }},
		{http.StatusInternalServerError, "InternalServerException", true, func(err error) bool { var e *types.InternalServerException; return errors.As(err, &e) }},
		{http.StatusBadRequest, "ValidationException", false, func(err error) bool { var e *types.ValidationException; return errors.As(err, &e) }},
		{http.StatusForbidden, "AccessDeniedException", false, func(err error) bool { var e *types.AccessDeniedException; return errors.As(err, &e) }},
		{http.StatusNotFound, "ResourceNotFoundException", false, func(err error) bool { var e *types.ResourceNotFoundException; return errors.As(err, &e) }},
	}
	for _, tc := range cases {
		t.Run(tc.errorType, func(t *testing.T) {
			f := newFake(t, fails(tc.status, tc.errorType, "Too many tokens, please wait."))
			_, err := f.client().Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v (%T), want *APIError", err, err)
			}
			if apiErr.StatusCode != tc.status || apiErr.Code != tc.errorType || apiErr.Message != "Too many tokens, please wait." || apiErr.RequestID != "req-1" {
				t.Errorf("APIError = %+v", apiErr)
			}
			if apiErr.Temporary() != tc.temporary {
				t.Errorf("Temporary() = %v, want %v", apiErr.Temporary(), tc.temporary)
			}
			if !tc.as(err) {
				t.Errorf("errors.As does not reach the SDK's %s", tc.errorType)
			}
			if got := strings.Contains(err.Error(), "retryable"); got != tc.temporary {
				t.Errorf("message %q says retryable: %v, want %v", err, got, tc.temporary)
			}
			if n := len(f.Requests()); n != 1 {
				t.Errorf("%d requests with WithMaxRetries(0), want 1", n)
			}
		})
	}
}

// TestThrottlingIsRetriedBySDK: with retries allowed, the SDK retries a
// throttled request and the second answer is used.
func TestThrottlingIsRetriedBySDK(t *testing.T) {
	f := newFake(t, fails(http.StatusTooManyRequests, "ThrottlingException", "slow down"), ok(reply("Done.")))
	resp, err := f.client(WithMaxRetries(1)).Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Done." || len(f.Requests()) != 2 {
		t.Fatalf("text %q after %d requests, want the retried answer after 2", resp.Text(), len(f.Requests()))
	}
}

// TestTransportErrorsAreWrapped: a request that never reached Bedrock is
// not an *APIError.
func TestTransportErrorsAreWrapped(t *testing.T) {
	f := newFake(t)
	f.srv.Close()
	_, err := f.client().Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	var apiErr *APIError
	if err == nil || errors.As(err, &apiErr) || !strings.HasPrefix(err.Error(), "bedrock: converse:") {
		t.Fatalf("err = %v, want a wrapped transport error", err)
	}
}
