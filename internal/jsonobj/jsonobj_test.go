package jsonobj

import (
	"errors"
	"testing"
)

func TestMembersKeepOrderAndBytes(t *testing.T) {
	ms, err := Members([]byte(` {"b": [1, 2], "a":{"x" : 1},"b":"dup"} `))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 || ms[0].Key != "b" || string(ms[0].Value) != `[1, 2]` || ms[1].Key != "a" || string(ms[1].Value) != `{"x" : 1}` {
		t.Fatalf("Members = %q", ms)
	}
	if v, _ := Get(ms, "b"); string(v) != `"dup"` {
		t.Errorf("Get takes the last repeated key, got %s", v)
	}
	if got := string(Encode(Without(ms, "a"))); got != `{"b":[1, 2],"b":"dup"}` {
		t.Errorf("Without = %s", got)
	}
	if got := string(Encode(Set(ms[:2], "a", []byte(`0`)))); got != `{"b":[1, 2],"a":0}` {
		t.Errorf("Set replace = %s", got)
	}
	if got := string(Encode(Set(nil, "<k>", []byte(`true`)))); got != `{"<k>":true}` {
		t.Errorf("Set append = %s (keys are not HTML-escaped)", got)
	}
}

func TestMembersRejects(t *testing.T) {
	for _, in := range []string{``, `[]`, `"s"`, `{"a":}`, `{"a":1} x`, `{"a":1`} {
		if _, err := Members([]byte(in)); err == nil {
			t.Errorf("Members(%q) succeeded", in)
		}
	}
	if _, err := Members([]byte(`[1]`)); !errors.Is(err, ErrNotObject) {
		t.Errorf("Members([1]) = %v, want ErrNotObject", err)
	}
}
