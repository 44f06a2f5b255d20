package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// The peer: the executor behind a plain net/http JSON endpoint, POST
// /call, that a consumer calls directly over loopback. It decodes the
// call, runs it and encodes the outcome, and does nothing else: no
// validation, no store, no routing.

// directRequest is a call to the peer's endpoint.
type directRequest struct {
	CallID  string          `json:"call_id"`
	Tool    string          `json:"tool"`
	Payload json.RawMessage `json:"payload"`
}

// directResponse is the peer's answer, shaped like the registry's outcome.
type directResponse struct {
	CallID  string          `json:"call_id"`
	Outcome string          `json:"outcome"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// maxDirectBody bounds a request to the peer.
const maxDirectBody = 1 << 20

// directHandler serves exec at POST /call.
func directHandler(exec toolcall.Executor) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /call", func(w http.ResponseWriter, r *http.Request) {
		var req directRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxDirectBody)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		call := toolcall.Forwarded(tools.JoinIdent(ToolsetName, req.Tool), tools.ToolSpec{}, req.Payload, tools.CallMeta{ToolCallID: req.CallID})
		res, err := exec.Execute(r.Context(), call)
		out := directResponse{CallID: req.CallID, Outcome: "ok"}
		switch {
		case err != nil:
			out.Outcome, out.Error = "tool_error", err.Error()
		case res == nil || res.Failure != nil:
			out.Outcome, out.Error = "tool_error", "the tool failed"
		default:
			out.Result = res.Result
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	return mux
}

// directClient calls the peer.
type directClient struct {
	url  string
	http *http.Client
}

// call runs one call and returns its result; an outcome other than ok is
// an error.
func (d *directClient) call(ctx context.Context, id string, payload json.RawMessage) (json.RawMessage, error) {
	body, err := json.Marshal(directRequest{CallID: id, Tool: ToolName, Payload: payload})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, fmt.Errorf("direct call: %s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	var out directResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("direct call: %w", err)
	}
	if out.Outcome != "ok" {
		return nil, fmt.Errorf("direct call: outcome %s: %s", out.Outcome, out.Error)
	}
	return out.Result, nil
}
