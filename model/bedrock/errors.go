package bedrock

import (
	"errors"
	"fmt"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
)

// APIError is an error answered by Bedrock, named like the other
// adapters' (model/compat, model/openai, model/anthropic). It wraps the
// SDK's error, so errors.As also reaches the SDK's exception types
// (*types.ThrottlingException, …) and smithy.APIError.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the exception name ("ThrottlingException", …).
	Code string
	// Message is Bedrock's explanation.
	Message string
	// RequestID is the x-amzn-RequestId header.
	RequestID string
	// Err is the SDK's error.
	Err error
}

// Error says what Bedrock answered and, for the retryable errors, that
// retrying later may succeed.
func (e *APIError) Error() string {
	msg := fmt.Sprintf("bedrock: Converse answered %d", e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		msg += " " + text
	}
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request id " + e.RequestID + ")"
	}
	if e.Temporary() {
		msg += "; retryable: retry later or raise the account's Bedrock quota"
	}
	return msg
}

// Unwrap returns the SDK's error.
func (e *APIError) Unwrap() error { return e.Err }

// Temporary reports whether retrying later may succeed: throttling (429),
// an unavailable service (503), a model that is not ready yet, internal
// errors and model timeouts, and any other 5xx. Validation, access,
// unknown-model and quota errors are permanent.
func (e *APIError) Temporary() bool {
	switch e.Code {
	case "ThrottlingException", "ServiceUnavailableException", "ModelNotReadyException",
		"InternalServerException", "ModelTimeoutException":
		return true
	}
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// wrapSDKError turns an SDK error into an *APIError when Bedrock answered
// with an error, and wraps any other error (transport, context, signing)
// with the package prefix.
func wrapSDKError(err error) error {
	var apiErr smithy.APIError
	var respErr *awshttp.ResponseError
	hasAPI := errors.As(err, &apiErr)
	// A request that was never answered (connection refused, timeout) is
	// a ResponseError too, with status 0: not an answer of Bedrock.
	hasResp := errors.As(err, &respErr) && respErr.HTTPStatusCode() != 0
	if !hasAPI && !hasResp {
		return fmt.Errorf("bedrock: converse: %w", err)
	}
	e := &APIError{Err: err}
	if hasAPI {
		e.Code = apiErr.ErrorCode()
		e.Message = apiErr.ErrorMessage()
	}
	if hasResp {
		e.StatusCode = respErr.HTTPStatusCode()
		e.RequestID = respErr.ServiceRequestID()
	}
	return e
}
