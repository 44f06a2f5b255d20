package providerfake

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// AssertJSON fails the test unless got (a request body or part of one)
// and want hold the same JSON value: compared as values, so key order and
// spacing do not matter, numbers compared as written.
func AssertJSON(t testing.TB, what string, got []byte, want string) {
	t.Helper()
	g, err := decodeJSON(got)
	if err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	w, err := decodeJSON([]byte(want))
	if err != nil {
		t.Fatalf("%s: the expected value: %v in %s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s differs:\n got: %s\nwant: %s", what, indent(got), indent([]byte(want)))
	}
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func indent(b []byte) string {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		return string(b)
	}
	return buf.String()
}
