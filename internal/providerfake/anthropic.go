package providerfake

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Anthropic Messages (POST /v1/messages): a Message object of
// anthropic-sdk-go v2 and its content blocks. Blocks are JSON objects; a
// message joins them into its "content" array.

// AnthropicMessage is an assistant message of claude-sonnet-4-5 that
// stopped for stop (end_turn, tool_use, pause_turn…) with the content
// blocks (an empty content array without any).
func AnthropicMessage(id, stop string, u Usage, blocks ...string) string {
	return fmt.Sprintf(`{"id":%q,"type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[%s],`+
		`"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":%d,`+
		`"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard"}}`,
		id, strings.Join(blocks, ","), stop, u.Input, u.Output, u.CacheRead)
}

// AnthropicText is a text block.
func AnthropicText(text string) string {
	raw, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return string(raw)
}

// AnthropicToolUse is a tool_use block calling name with input (a JSON
// object), called directly by the model.
func AnthropicToolUse(id, name, input string) string {
	return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":%s,"caller":{"type":"direct"}}`, id, name, input)
}

// AnthropicHostedSearch is a hosted BM25 tool search and its result: two
// blocks, a server_tool_use and the tool_search_tool_result referencing
// (loading) the tools.
func AnthropicHostedSearch(id, query string, tools ...string) string {
	refs := make([]string, len(tools))
	for i, name := range tools {
		refs[i] = fmt.Sprintf(`{"type":"tool_reference","tool_name":%q}`, name)
	}
	return fmt.Sprintf(`{"type":"server_tool_use","id":%q,"name":"tool_search_tool_bm25","input":{"query":%q},"caller":{"type":"direct"}},`+
		`{"type":"tool_search_tool_result","tool_use_id":%q,"content":{"type":"tool_search_tool_search_result","tool_references":[%s]}}`,
		id, query, id, strings.Join(refs, ","))
}
