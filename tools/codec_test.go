package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type devicePayload struct {
	SiteID string `json:"site_id"`
	Limit  int    `json:"limit,omitempty"`
}

func deviceCodec(t *testing.T) JSONCodec[devicePayload] {
	return NewJSONCodec[devicePayload](mustType(t, `{"type":"object","additionalProperties":false,"required":["site_id"],
		"properties":{"site_id":{"type":"string","minLength":1},"limit":{"type":"integer","maximum":100}}}`))
}

func TestJSONCodecFromJSON(t *testing.T) {
	c := deviceCodec(t)
	v, err := c.FromJSON([]byte(`{"site_id":"s1","limit":5}`))
	if err != nil || v != (devicePayload{SiteID: "s1", Limit: 5}) {
		t.Fatalf("FromJSON = %+v, %v", v, err)
	}
	t.Run("the schema is checked before unmarshalling", func(t *testing.T) {
		_, err := c.FromJSON([]byte(`{"limit":500,"extra":true}`))
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Violations) != 3 {
			t.Fatalf("FromJSON = %v, want 3 violations", err)
		}
		if !strings.Contains(err.Error(), "site_id: is required") {
			t.Errorf("error %q lacks the teaching message", err)
		}
	})
	t.Run("malformed JSON is reported with its offset", func(t *testing.T) {
		if _, err := c.FromJSON([]byte(`{"site_id":`)); !errors.Is(err, ErrInvalidJSON) {
			t.Fatalf("FromJSON = %v", err)
		}
	})
}

func TestJSONCodecToJSON(t *testing.T) {
	c := deviceCodec(t)
	data, err := c.ToJSON(devicePayload{SiteID: "s1"})
	if err != nil || string(data) != `{"site_id":"s1"}` {
		t.Fatalf("ToJSON = %s, %v", data, err)
	}
	t.Run("a value breaking its own schema is an error", func(t *testing.T) {
		_, err := c.ToJSON(devicePayload{SiteID: "", Limit: 101})
		if !errors.Is(err, ErrSchemaViolation) || !strings.Contains(err.Error(), "limit: must be <= 100 (got 101)") {
			t.Fatalf("ToJSON = %v", err)
		}
	})
}

func TestJSONCodecAnyKeepsNumbersExact(t *testing.T) {
	c := NewJSONCodec[map[string]any](mustType(t, `{"type":"object"}`))
	v, err := c.FromJSON([]byte(`{"n":9007199254740993}`))
	if err != nil || v["n"] != json.Number("9007199254740993") {
		t.Fatalf("FromJSON = %#v, %v", v, err)
	}
}

func TestTypedTool(t *testing.T) {
	tool := TypedTool[devicePayload, map[string]any]{
		Spec:    ToolSpec{Name: "inventory.list_devices"},
		Payload: deviceCodec(t),
		Result:  NewJSONCodec[map[string]any](TypeSpec{}),
	}
	if tool.Ident() != "inventory.list_devices" {
		t.Errorf("Ident = %q", tool.Ident())
	}
	if _, err := tool.Result.FromJSON([]byte(`{"any":"thing"}`)); err != nil {
		t.Errorf("a codec over the zero TypeSpec accepts any JSON: %v", err)
	}
}
