package providerfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
)

// OpenAI Responses streamed ("stream": true): the server-sent events the
// API writes for a response, each named by its type and carrying a JSON
// object with that "type" and a "sequence_number" counting from 0 —
// responses.ResponseStreamEventUnion of openai-go v3.99.0. For a response
// the stream is:
//
//   - response.created and response.in_progress, with the response as it
//     starts: status "in_progress", no output, no usage;
//   - per output item (output_index i, item_id its "id"):
//     response.output_item.added with the item as it starts (status
//     "in_progress"; a message without content, a function call without
//     arguments), then its pieces — for each content part of a message,
//     response.content_part.added, a few response.output_text.delta (or
//     response.refusal.delta) events, response.output_text.done (or
//     response.refusal.done) and response.content_part.done; for a
//     function call, a few response.function_call_arguments.delta events
//     and response.function_call_arguments.done — then
//     response.output_item.done with the item whole;
//   - the final event, with the whole response: response.completed
//     (status "completed" or none), response.incomplete or
//     response.failed.

// openAIStreamContentType is the content type of a Responses stream.
const openAIStreamContentType = "text/event-stream"

// openAIStreamOf converts a whole Responses "response" object into its
// stream, for a request that asked for one; it reports false for any
// other body.
func openAIStreamOf(body []byte) ([]Event, string, bool) {
	events, err := openAIStream(body)
	if err != nil {
		return nil, "", false
	}
	return events, openAIStreamContentType, true
}

// OpenAIStreamEvents returns the events the Responses API streams for
// responseJSON (a response object, e.g. built by [OpenAIResponse]) — the
// events the server writes on its own when a request asks for a stream
// and its scripted answer is that object — for a test that holds some
// of them (Event.Wait) or cuts the stream ([Answer.Cut]). It panics when
// responseJSON is not a response object: a test's script is wrong.
func OpenAIStreamEvents(responseJSON string) []Event {
	events, err := openAIStream([]byte(responseJSON))
	if err != nil {
		panic(fmt.Sprintf("providerfake.OpenAIStreamEvents: %v", err))
	}
	return events
}

// OpenAIStreamError is the "error" event the Responses API sends when a
// response fails after its stream began (responses.ResponseErrorEvent),
// numbered seq.
func OpenAIStreamError(seq int, code, message string) Event {
	return SSE("error", mustJSON(map[string]any{
		"type": "error", "code": code, "message": message, "param": nil, "sequence_number": seq,
	}))
}

// openAIStream builds the events of a response object.
func openAIStream(body []byte) ([]Event, error) {
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	var object, status string
	_ = json.Unmarshal(resp["object"], &object)
	_ = json.Unmarshal(resp["status"], &status)
	if object != "response" {
		return nil, fmt.Errorf(`"object" is %q, want "response"`, object)
	}
	final, ok := map[string]string{"": "response.completed", "completed": "response.completed",
		"incomplete": "response.incomplete", "failed": "response.failed"}[status]
	if !ok {
		return nil, fmt.Errorf("a response with status %q ends no stream: want completed, incomplete or failed", status)
	}
	var items []json.RawMessage
	if raw, ok := resp["output"]; ok {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf(`"output": %w`, err)
		}
	}
	w := &eventWriter{}
	start := maps.Clone(resp)
	start["status"] = json.RawMessage(`"in_progress"`)
	start["output"] = json.RawMessage(`[]`)
	start["usage"] = json.RawMessage(`null`)
	start["error"] = json.RawMessage(`null`)
	start["incomplete_details"] = json.RawMessage(`null`)
	w.add("response.created", map[string]any{"response": start})
	w.add("response.in_progress", map[string]any{"response": start})
	for i, raw := range items {
		if err := w.item(i, raw); err != nil {
			return nil, fmt.Errorf("output[%d]: %w", i, err)
		}
	}
	w.add(final, map[string]any{"response": json.RawMessage(body)})
	return w.events, nil
}

// eventWriter numbers the events it adds.
type eventWriter struct {
	events []Event
}

// add appends an event of type typ whose other members are fields.
func (w *eventWriter) add(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = len(w.events)
	w.events = append(w.events, SSE(typ, mustJSON(fields)))
}

// item adds the events of output item i.
func (w *eventWriter) item(i int, raw json.RawMessage) error {
	var item map[string]json.RawMessage
	if err := json.Unmarshal(raw, &item); err != nil {
		return err
	}
	var head struct {
		Type      string            `json:"type"`
		ID        string            `json:"id"`
		Arguments json.RawMessage   `json:"arguments"`
		Content   []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return err
	}
	added := maps.Clone(item)
	if _, ok := added["status"]; ok {
		added["status"] = json.RawMessage(`"in_progress"`)
	}
	switch head.Type {
	case "message":
		added["content"] = json.RawMessage(`[]`)
	case "function_call":
		added["arguments"] = json.RawMessage(`""`)
	}
	w.add("response.output_item.added", map[string]any{"output_index": i, "item": added})
	switch head.Type {
	case "message":
		for j, part := range head.Content {
			if err := w.contentPart(i, j, head.ID, part); err != nil {
				return fmt.Errorf("content[%d]: %w", j, err)
			}
		}
	case "function_call":
		var args string
		if err := json.Unmarshal(head.Arguments, &args); err != nil {
			return fmt.Errorf(`function_call "arguments" must be a string: %w`, err)
		}
		for _, piece := range thirds(args) {
			w.add("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": head.ID, "delta": piece})
		}
		w.add("response.function_call_arguments.done", map[string]any{"output_index": i, "item_id": head.ID, "arguments": args})
	}
	w.add("response.output_item.done", map[string]any{"output_index": i, "item": raw})
	return nil
}

// contentPart adds the events of content part j of message item i.
func (w *eventWriter) contentPart(i, j int, itemID string, raw json.RawMessage) error {
	var part struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if err := json.Unmarshal(raw, &part); err != nil {
		return err
	}
	at := func() map[string]any {
		return map[string]any{"output_index": i, "content_index": j, "item_id": itemID}
	}
	var empty json.RawMessage
	var text, field, kind string
	switch part.Type {
	case "output_text":
		empty = json.RawMessage(`{"type":"output_text","text":"","annotations":[],"logprobs":[]}`)
		text, field, kind = part.Text, "text", "response.output_text"
	case "refusal":
		empty = json.RawMessage(`{"type":"refusal","refusal":""}`)
		text, field, kind = part.Refusal, "refusal", "response.refusal"
	default:
		return fmt.Errorf("content part type %q: want output_text or refusal", part.Type)
	}
	added := at()
	added["part"] = empty
	w.add("response.content_part.added", added)
	for _, piece := range thirds(text) {
		delta := at()
		delta["delta"] = piece
		if part.Type == "output_text" {
			delta["logprobs"] = []any{}
		}
		w.add(kind+".delta", delta)
	}
	done := at()
	done[field] = text
	if part.Type == "output_text" {
		done["logprobs"] = []any{}
	}
	w.add(kind+".done", done)
	finished := at()
	finished["part"] = raw
	w.add("response.content_part.done", finished)
	return nil
}

// pieces splits s into up to three deltas of about the same number of
// characters, never inside a character; none for the empty string.
func thirds(s string) []string {
	runes := []rune(s)
	n := min(3, len(runes))
	out := make([]string, 0, n)
	for k := range n {
		out = append(out, string(runes[k*len(runes)/n:(k+1)*len(runes)/n]))
	}
	return out
}

// mustJSON encodes v, which holds only JSON values and valid raw JSON,
// without escaping HTML characters, so raw members are kept as written.
func mustJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("providerfake: encoding an event: %v", err))
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
