package engine

import (
	"encoding/json"
	"testing"
)

func TestMarshalKeepsModelTextVerbatim(t *testing.T) {
	v := struct {
		Message string          `json:"message"`
		Raw     json.RawMessage `json:"raw"`
	}{Message: "limit: must be <= 100 & > 0", Raw: json.RawMessage(`{"error":"a < b"}`)}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"message":"limit: must be <= 100 & > 0","raw":{"error":"a < b"}}`
	if string(got) != want {
		t.Fatalf("Marshal = %s, want %s", got, want)
	}
}
