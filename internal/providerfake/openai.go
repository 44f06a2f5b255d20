package providerfake

import (
	"fmt"
	"strings"
)

// OpenAI Responses (POST /responses): a responses.Response object of
// openai-go v3.99.0 and its output items. Items are JSON objects; a
// response joins them into its "output" array.

// OpenAIResponse is a completed response with the output items.
func OpenAIResponse(id string, u Usage, items ...string) string {
	return openAIResponse(id, "completed", "null", u, items)
}

// OpenAIIncompleteResponse is a response cut off by its output token limit
// (incomplete_details.reason max_output_tokens) with the output items.
func OpenAIIncompleteResponse(id string, u Usage, items ...string) string {
	return openAIResponse(id, "incomplete", `{"reason":"max_output_tokens"}`, u, items)
}

func openAIResponse(id, status, incomplete string, u Usage, items []string) string {
	return fmt.Sprintf(`{"id":%q,"object":"response","created_at":1767225600,"status":%q,"model":"gpt-5.4",`+
		`"error":null,"incomplete_details":%s,"instructions":null,"metadata":{},"parallel_tool_calls":true,`+
		`"temperature":1,"top_p":1,"tool_choice":"auto","tools":[],"output":[%s],`+
		`"usage":{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d,"cache_write_tokens":0},`+
		`"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}}`,
		id, status, incomplete, strings.Join(items, ","), u.Input, u.CacheRead, u.Output, u.Input+u.Output)
}

// OpenAIToolSearchCall is a client-executed tool_search call the adapter
// answers.
func OpenAIToolSearchCall(id, callID, query string) string {
	return fmt.Sprintf(`{"type":"tool_search_call","id":%q,"call_id":%q,"execution":"client","status":"completed","arguments":{"query":%q}}`, id, callID, query)
}

// OpenAIFunctionCall is a function call; namespace, when not empty, is the
// one the provider echoes for a function a search loaded (the adapter puts
// each loaded function in a namespace of its own name).
func OpenAIFunctionCall(id, callID, name, namespace, args string) string {
	ns := ""
	if namespace != "" {
		ns = fmt.Sprintf(`,"namespace":%q`, namespace)
	}
	return fmt.Sprintf(`{"type":"function_call","id":%q,"call_id":%q,"name":%q%s,"arguments":%q,"status":"completed"}`, id, callID, name, ns, args)
}

// OpenAIMessage is an assistant message with one output_text.
func OpenAIMessage(id, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, id, text)
}
