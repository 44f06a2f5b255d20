package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// ErrMaxTokensRequired is wrapped by the error of a request without a
// positive MaxTokens: the Messages API requires max_tokens.
var ErrMaxTokensRequired = errors.New("anthropic: max tokens required")

// ErrPauseTurn is wrapped by the error of an invocation the provider
// paused (stop_reason "pause_turn") after server-side work only.
// Continuing a paused turn is not implemented.
var ErrPauseTurn = errors.New("anthropic: turn paused")

// ErrDefinitionChanged is matched (errors.Is) by every
// *DefinitionChangedError: a tool definition the conversation's tool
// search history references changed or was removed.
var ErrDefinitionChanged = errors.New("anthropic: tool definition changed")

// APIError is an error response of the Messages API. It wraps the SDK's
// *anthropic.Error (errors.As reaches it), whose fields it repeats.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Type is error.type of the body ("invalid_request_error", …); on
	// Bedrock, whose error bodies have no type, the exception name of the
	// X-Amzn-ErrorType header ("ThrottlingException", …).
	Type string
	// Message is error.message of the body; on Bedrock, the body's
	// top-level "message".
	Message string
	// RequestID is the request-id header; on Bedrock, X-Amzn-RequestId.
	RequestID string
	// Err is the SDK's error.
	Err *sdk.Error
}

// Error describes the failure.
func (e *APIError) Error() string {
	msg := fmt.Sprintf("anthropic: provider error %d", e.StatusCode)
	if e.Type != "" {
		msg += " " + e.Type
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request-id " + e.RequestID + ")"
	}
	return msg
}

// Unwrap returns the SDK's error.
func (e *APIError) Unwrap() error { return e.Err }

// Temporary reports whether retrying later may succeed: the statuses the
// SDK retries itself (408, 409, 429, 5xx; see WithMaxRetries), and the
// transient error types whatever the status — a stream's error event
// arrives after a 200: Anthropic's rate_limit_error, api_error,
// overloaded_error and timeout_error (Anthropic docs, "Errors"), and
// Bedrock's ThrottlingException (429), ServiceUnavailableException (503),
// ModelNotReadyException (429), ModelTimeoutException (408),
// InternalServerException (500) and, in a response stream,
// ModelStreamErrorException (its exception events name them with a
// lower-case first letter).
func (e *APIError) Temporary() bool {
	for _, transient := range transientTypes {
		if strings.EqualFold(e.Type, transient) {
			return true
		}
	}
	switch {
	case e.StatusCode == http.StatusRequestTimeout, e.StatusCode == http.StatusConflict, e.StatusCode == http.StatusTooManyRequests:
		return true
	default:
		return e.StatusCode >= http.StatusInternalServerError
	}
}

// transientTypes are the error types of APIError.Temporary.
var transientTypes = []string{
	"rate_limit_error", "api_error", "overloaded_error", "timeout_error",
	"ThrottlingException", "ServiceUnavailableException", "ModelNotReadyException", "ModelTimeoutException", "InternalServerException", "ModelStreamErrorException",
}

// wrapSDKError turns an error of the SDK into ours: API errors become
// *APIError, others are wrapped with the package prefix.
func wrapSDKError(err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		e := &APIError{
			StatusCode: apiErr.StatusCode,
			Type:       string(apiErr.Type()),
			Message:    apiErr.Message,
			RequestID:  apiErr.RequestID,
			Err:        apiErr,
		}
		bedrockErrorFields(e, apiErr)
		return e
	}
	return fmt.Errorf("anthropic: messages request: %w", err)
}

// bedrockErrorFields fills what an error of Bedrock carries elsewhere than
// the Messages API's (Bedrock API reference, InvokeModel, Errors): the
// exception name in the X-Amzn-ErrorType header
// ("ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"),
// the message at the top level of the body ({"message":"…"}) and the
// request id in X-Amzn-RequestId.
func bedrockErrorFields(e *APIError, apiErr *sdk.Error) {
	if res := apiErr.Response; res != nil {
		if e.Type == "" {
			name, _, _ := strings.Cut(res.Header.Get("X-Amzn-ErrorType"), ":")
			e.Type = name
		}
		if e.RequestID == "" {
			e.RequestID = res.Header.Get("X-Amzn-RequestId")
		}
	}
	if e.Message == "" {
		var body struct {
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(apiErr.RawJSON()), &body) == nil {
			e.Message = body.Message
		}
	}
}

// SearchErrorCode is the error_code of a tool_search_tool_result_error.
type SearchErrorCode string

// The error codes of the hosted tool search (SDK v2.15.0 message.go,
// ToolSearchToolResultErrorCode).
const (
	SearchInvalidToolInput      SearchErrorCode = "invalid_tool_input"
	SearchUnavailable           SearchErrorCode = "unavailable"
	SearchTooManyRequests       SearchErrorCode = "too_many_requests"
	SearchExecutionTimeExceeded SearchErrorCode = "execution_time_exceeded"
)

// SearchError is a hosted tool search that failed: the response held a
// tool_search_tool_result whose content is a tool_search_tool_result_error.
type SearchError struct {
	// Code is the provider's error_code.
	Code SearchErrorCode
	// Message is the provider's error_message, if any.
	Message string
	// ToolUseID is the id of the server_tool_use that failed.
	ToolUseID string
}

// Error describes the failure.
func (e *SearchError) Error() string {
	msg := fmt.Sprintf("anthropic: hosted tool search %s failed: %s", e.ToolUseID, e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Temporary reports whether retrying later may succeed (unavailable,
// too_many_requests, execution_time_exceeded).
func (e *SearchError) Temporary() bool {
	switch e.Code {
	case SearchUnavailable, SearchTooManyRequests, SearchExecutionTimeExceeded:
		return true
	}
	return false
}

// DefinitionChangedError reports that the conversation holds a tool search
// result referencing a tool whose definition (description, input schema or
// input examples) has changed since, or that is gone. The provider expands
// a tool_reference with the definition the request carries now, so the
// history cannot be replayed faithfully; the adapter never rewrites or drops
// history silently.
type DefinitionChangedError struct {
	// Name is the tool's wire name.
	Name string
	// Message is the index, in Request.Messages, of the message holding the
	// search result.
	Message int
	// Removed is set when the request no longer carries the tool at all.
	Removed bool
}

// Error describes the failure and the fix.
func (e *DefinitionChangedError) Error() string {
	what := "changed since"
	if e.Removed {
		what = "was removed after"
	}
	return fmt.Sprintf("anthropic: tool %q %s the tool search of message %d loaded it; the Messages API expands tool references with the current definitions, so this history cannot be replayed: start a new conversation, or compact the history deliberately so that no message references the old definition", e.Name, what, e.Message)
}

// Is matches ErrDefinitionChanged.
func (e *DefinitionChangedError) Is(target error) bool { return target == ErrDefinitionChanged }
