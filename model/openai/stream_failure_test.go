package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

func TestStreamFailuresAreCompletesErrors(t *testing.T) {
	failed := strings.Replace(response("resp_1", "completed", 3), `"status":"completed","model":"gpt-5.4","error":null`,
		`"status":"failed","model":"gpt-5.4","error":{"code":"server_error","message":"The model crashed."}`, 1)
	const apiError = `{"error":{"message":"The model 'gpt-nope' does not exist.","type":"invalid_request_error","param":"model","code":"model_not_found"}}`

	t.Run("response.failed", func(t *testing.T) {
		_, whole := newProvider(t, exchange{body: failed})
		_, werr := whole.Complete(context.Background(), baseRequest())
		_, c := newStreamProvider(t, providerfake.OK(failed))
		_, _, err := streamAll(t, c, baseRequest())
		if !errors.Is(err, ErrResponseFailed) || werr == nil || err.Error() != werr.Error() {
			t.Fatalf("err = %v, want Complete's %v", err, werr)
		}
	})
	t.Run("error event", func(t *testing.T) {
		events := providerfake.OpenAIStreamEvents(response("resp_1", "completed", 3, providerfake.OpenAIMessage("msg_1", "Hello")))
		events = append(events[:3], providerfake.OpenAIStreamError(3, "server_error", "The server had an error."))
		_, c := newStreamProvider(t, providerfake.Stream(events...))
		_, _, err := streamAll(t, c, baseRequest())
		var se *StreamError
		if !errors.As(err, &se) || !errors.Is(err, ErrResponseFailed) {
			t.Fatalf("err = %v, want a *StreamError wrapping ErrResponseFailed", err)
		}
		equal(t, "stream error", *se, StreamError{Code: "server_error", Message: "The server had an error."})
	})
	t.Run("error object the SDK stops at", func(t *testing.T) {
		_, c := newStreamProvider(t, providerfake.Stream(
			providerfake.SSE("error", `{"type":"error","error":{"type":"server_error","code":"overloaded","message":"Try again later."}}`)))
		_, _, err := streamAll(t, c, baseRequest())
		var se *StreamError
		if !errors.As(err, &se) || se.Code != "overloaded" || se.Message != "Try again later." {
			t.Fatalf("err = %v, want a *StreamError", err)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		p, c := newStreamProvider(t)
		p.Close()
		_, _, err := streamAll(t, c, baseRequest())
		if err == nil || errors.Is(err, model.ErrStreamInterrupted) || !strings.HasPrefix(err.Error(), "openai: request: ") {
			t.Fatalf("err = %v, want the request's failure, no stream having begun", err)
		}
	})
	t.Run("HTTP error", func(t *testing.T) {
		_, c := newStreamProvider(t, providerfake.Answer{Status: http.StatusBadRequest, Body: apiError})
		_, _, err := streamAll(t, c, baseRequest())
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Code != "model_not_found" {
			t.Fatalf("err = %v, want an *APIError", err)
		}
	})
}

func TestStreamRefusesWhatCompleteRefusesBeforeSending(t *testing.T) {
	_, c := newStreamProvider(t)
	if _, err := c.Stream(context.Background(), nil); err == nil {
		t.Error("a nil request streamed")
	}
	req := baseRequest()
	req.MaxTokens = 0
	if _, err := c.Stream(context.Background(), req); !errors.Is(err, ErrMaxTokensRequired) {
		t.Errorf("err = %v, want ErrMaxTokensRequired", err)
	}
}
