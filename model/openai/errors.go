package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
)

// ErrMaxTokensRequired is wrapped by the error of a request with deferred
// tools and no positive MaxTokens: search rounds share the invocation's
// output budget.
var ErrMaxTokensRequired = errors.New("openai: max tokens required")

// ErrResponseFailed is wrapped by the error of a response whose status is
// "failed" or "incomplete" for a reason other than the output budget.
var ErrResponseFailed = errors.New("openai: response did not complete")

// ErrCallWithoutNamespace is wrapped by the error of a request sent to
// Bedrock (WithBedrock) whose history holds a call of a searched tool
// without the namespace container the search loaded it in — written, for
// instance, by a client that placed dynamic functions outside it. Bedrock
// may reject such a call on replay, and the adapter never invents the
// provider's missing fields: start a new conversation, or remove the whole
// exchange (the assistant message with the call and the tool results
// answering it). Nothing is sent.
var ErrCallWithoutNamespace = errors.New("openai: a call of a searched tool lacks its namespace")

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

// Temporary reports whether retrying later may succeed: the statuses the
// SDK retries on its own (WithMaxRetries) — 408, 409, 429 (rate limits,
// Bedrock's throttling) and 5xx (server errors, Bedrock's
// ServiceUnavailableException) — so an error still Temporary came after
// the retries ran out.
func (e *APIError) Temporary() bool {
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return true
	}
	return e.StatusCode >= 500
}

// maxErrorBody bounds how much of an error body is read for its message.
const maxErrorBody = 64 << 10

// wrapSDKError turns an error of the SDK into an *APIError when the
// provider answered, and prefixes any other error.
func wrapSDKError(err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		e := &APIError{
			StatusCode: apiErr.StatusCode,
			Type:       apiErr.Type,
			Code:       apiErr.Code,
			Param:      apiErr.Param,
			Message:    apiErr.Message,
			Err:        apiErr,
		}
		if e.Message == "" {
			e.fillFromAWS(apiErr.Response)
		}
		return e
	}
	return fmt.Errorf("openai: request: %w", err)
}

// fillFromAWS reads an error answered the AWS way, without the OpenAI
// "error" member the SDK decodes: {"message":"…"} (or "Message") at the top
// level, the error type in the x-amzn-ErrorType header
// ("ThrottlingException:http://internal.amazon.com/…", the part before the
// colon kept) or in the body's "__type". Bedrock answers throttling and
// service errors so. The body is restored, so that the SDK error's
// DumpResponse still shows it.
func (e *APIError) fillFromAWS(res *http.Response) {
	if res == nil {
		return
	}
	if t := res.Header.Get("X-Amzn-Errortype"); t != "" && e.Type == "" {
		e.Type, _, _ = strings.Cut(t, ":")
	}
	if res.Body == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return
	}
	var top struct {
		Message string `json:"message"` // matches "Message" too
		Type    string `json:"__type"`
	}
	if json.Unmarshal(body, &top) != nil {
		return
	}
	e.Message = top.Message
	if e.Type == "" && top.Type != "" {
		_, after, found := strings.Cut(top.Type, "#")
		if !found {
			after = top.Type
		}
		e.Type = after
	}
}

// StreamError is an "error" event of a streamed response
// (responses.ResponseErrorEvent: {"type":"error","code","message",
// "param"}): the provider failed the response after its stream began. It
// wraps ErrResponseFailed, so a caller branches on it as on a response of
// Complete that failed.
type StreamError struct {
	// Code, Message and Param are the event's fields, possibly empty.
	Code, Message, Param string
}

// Error returns the provider's code and message.
func (e *StreamError) Error() string {
	s := "openai: the provider failed the streamed response"
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Param != "" {
		s += " at " + e.Param
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Unwrap returns ErrResponseFailed.
func (e *StreamError) Unwrap() error { return ErrResponseFailed }
