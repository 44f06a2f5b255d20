package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
)

// APIError is an error status (4xx, 5xx) answered by the server, named
// like the other adapters' (model/openai, model/anthropic). It wraps the
// SDK's *openai.Error, so errors.As reaches either.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Message is the server's explanation.
	Message string
	// Type, Code and Param are the server's error fields, when it sent them.
	Type  string
	Code  string
	Param string
	// Err is the SDK's error; its Response keeps the body.
	Err *openai.Error
}

// Error says what the server answered.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compat: the server answered %d", e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		b.WriteString(" " + text)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	var details []string
	for _, kv := range [][2]string{{"type", e.Type}, {"code", e.Code}, {"param", e.Param}} {
		if kv[1] != "" {
			details = append(details, kv[0]+" "+kv[1])
		}
	}
	if len(details) > 0 {
		b.WriteString(" (" + strings.Join(details, ", ") + ")")
	}
	return b.String()
}

// Unwrap returns the SDK error.
func (e *APIError) Unwrap() error { return e.Err }

// Temporary reports whether retrying later may succeed (rate limits,
// timeouts, server errors).
func (e *APIError) Temporary() bool {
	switch {
	case e.StatusCode == http.StatusRequestTimeout, e.StatusCode == http.StatusConflict, e.StatusCode == http.StatusTooManyRequests:
		return true
	default:
		return e.StatusCode >= 500
	}
}

// maxErrorBody bounds how much of an error body is read for its message.
const maxErrorBody = 64 << 10

// wrapSDKError turns an SDK error into an *APIError when the server
// answered with an error status, and wraps any other error (transport,
// context, decoding) with the package prefix.
//
// The SDK parses the body's "error" member ({"error":{"message","type",
// "param","code"}}: OpenAI, Ollama, llama-server; openai-go/v3
// internal/requestconfig). Some servers (older vLLM) put those fields at the
// top level ({"object":"error","message":...}); then the message is read
// from the body the SDK keeps on the error's Response.
func wrapSDKError(err error) error {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("compat: chat completion: %w", err)
	}
	pe := &APIError{
		StatusCode: apiErr.StatusCode,
		Message:    apiErr.Message,
		Type:       apiErr.Type,
		Code:       apiErr.Code,
		Param:      apiErr.Param,
		Err:        apiErr,
	}
	if pe.Message == "" {
		pe.fillFromBody(apiErr.Response)
	}
	return pe
}

// fillFromBody reads the error fields from a body without an "error"
// member, or keeps its text (bounded) when it has no top-level message. The body is restored so
// that the SDK error's DumpResponse still shows it.
func (e *APIError) fillFromBody(res *http.Response) {
	if res == nil || res.Body == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return
	}
	var top struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Param   json.RawMessage `json:"param"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body, &top) == nil && top.Message != "" {
		e.Message = top.Message
		e.Type = top.Type
		e.Code = scalar(top.Code)
		e.Param = scalar(top.Param)
		return
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 512 {
		text = text[:512] + "…"
	}
	e.Message = text
}

// scalar renders a JSON string or number as text, and null as "".
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}
