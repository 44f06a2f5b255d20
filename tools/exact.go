package tools

import (
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// exactOptions decode the way every payload path must: object keys match
// struct fields exactly (encoding/json would also take "ORDER_ID" or
// "uſer_id" for "order_id", last key winning), duplicate keys and invalid
// UTF-8 are errors, and values held as any keep numbers as json.Number.
var exactOptions = jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *any) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	parsed, err := parseJSON(raw)
	if err != nil {
		return err
	}
	*v = parsed
	return nil
}))

// Unmarshal decodes data into v, which must be a non-nil pointer, matching
// object keys to struct fields exactly (case-sensitive, no Unicode
// folding) and refusing duplicate keys and invalid UTF-8. Numbers decoded
// into an any keep their text as [json.Number]. [Decode], [JSONCodec.FromJSON]
// and the runtime's ToolCall.Decode all read payloads through it.
func Unmarshal(data []byte, v any) error {
	if err := jsonv2.Unmarshal(data, v, exactOptions); err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	return nil
}
