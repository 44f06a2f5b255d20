package jsonpos_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/quiver-go/quiver/internal/jsonpos"
)

func TestLocate(t *testing.T) {
	type doc struct {
		Keys []struct {
			Name string `json:"name"`
		} `json:"keys"`
	}
	for _, tt := range []struct {
		name, text string
		line, col  int
	}{
		{"syntax", "{\n  \"keys\": [\n    {\"name\": }\n  ]\n}", 3, 14},
		{"type", "{\n  \"keys\": [\n    {\"name\": 5}\n  ]\n}", 3, 14},
		{"unknown field", "{\n  \"keys\": [\n    {\"name\": \"nmae\", \"nmae\": \"a\"}\n  ]\n}", 3, 22},
		{"cut short", "{\n  \"keys\": [", 2, 12},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.text)
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			var d doc
			err := jsonpos.Locate(data, dec, dec.Decode(&d))
			var e *jsonpos.Error
			if !errors.As(err, &e) {
				t.Fatalf("%v (%T), want *jsonpos.Error", err, err)
			}
			if e.Line != tt.line || e.Column != tt.col {
				t.Errorf("%v: at %d:%d, want %d:%d", err, e.Line, e.Column, tt.line, tt.col)
			}
		})
	}
}

func FuzzLocate(f *testing.F) {
	f.Add([]byte(`{"keys":[{"name":1}]}`))
	f.Add([]byte("{\n\"x\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := json.NewDecoder(bytes.NewReader(data))
		var v struct{ Keys []struct{ Name string } }
		err := jsonpos.Locate(data, dec, dec.Decode(&v))
		var e *jsonpos.Error
		if errors.As(err, &e) && (e.Line < 1 || e.Column < 1) {
			t.Fatalf("position %d:%d", e.Line, e.Column)
		}
	})
}
