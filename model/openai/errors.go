package openai

import (
	"errors"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
)

// ErrMaxTokensRequired is wrapped by the error of a request with deferred
// tools and no positive MaxTokens: search rounds share the invocation's
// output budget.
var ErrMaxTokensRequired = errors.New("openai: max tokens required")

// ErrResponseFailed is wrapped by the error of a response whose status is
// "failed" or "incomplete" for a reason other than the output budget.
var ErrResponseFailed = errors.New("openai: response did not complete")

// APIError is a provider error response (HTTP 4xx or 5xx). It wraps the
// SDK's *openai.Error, which holds the raw request and response.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Type, Code and Param are the provider's error fields, possibly empty.
	Type, Code, Param string
	// Message is the provider's error message.
	Message string
	// Err is the SDK's error.
	Err *sdk.Error
}

// Error returns the status and the provider's message.
func (e *APIError) Error() string {
	s := fmt.Sprintf("openai: provider returned HTTP %d", e.StatusCode)
	switch {
	case e.Type != "" && e.Code != "":
		s += fmt.Sprintf(" (%s, %s)", e.Type, e.Code)
	case e.Type != "":
		s += fmt.Sprintf(" (%s)", e.Type)
	case e.Code != "":
		s += fmt.Sprintf(" (%s)", e.Code)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Unwrap returns the SDK's error.
func (e *APIError) Unwrap() error { return e.Err }

// wrapSDKError turns an error of the SDK into an *APIError when the
// provider answered, and prefixes any other error.
func wrapSDKError(err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return &APIError{
			StatusCode: apiErr.StatusCode,
			Type:       apiErr.Type,
			Code:       apiErr.Code,
			Param:      apiErr.Param,
			Message:    apiErr.Message,
			Err:        apiErr,
		}
	}
	return fmt.Errorf("openai: request: %w", err)
}
