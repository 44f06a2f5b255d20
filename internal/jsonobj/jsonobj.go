// Package jsonobj edits JSON objects while keeping their members' order and
// bytes, so that a schema rewritten by tools or contract differs from its
// source only where it was edited.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNotObject is returned when the input is valid JSON but not an object.
var ErrNotObject = errors.New("not a JSON object")

// Member is one key/value pair of a JSON object, in source order. Value holds
// the member's raw bytes.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members parses raw as a JSON object and returns its members in source
// order. Repeated keys are kept.
func Members(raw []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", ErrNotObject, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ErrNotObject
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key at offset %d is not a string", dec.InputOffset())
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, Member{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil { // closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid data after the object at offset %d", dec.InputOffset())
	}
	return out, nil
}

// Get returns the value of the last member named key, as a JSON parser that
// keeps the last of repeated keys would.
func Get(ms []Member, key string) (json.RawMessage, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Key == key {
			return ms[i].Value, true
		}
	}
	return nil, false
}

// Without returns ms without the members whose key is one of keys.
func Without(ms []Member, keys ...string) []Member {
	out := make([]Member, 0, len(ms))
	for _, m := range ms {
		drop := false
		for _, k := range keys {
			if m.Key == k {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, m)
		}
	}
	return out
}

// Set replaces the value of every member named key, or appends a member when
// there is none.
func Set(ms []Member, key string, value json.RawMessage) []Member {
	out := make([]Member, 0, len(ms)+1)
	found := false
	for _, m := range ms {
		if m.Key == key {
			m.Value = value
			found = true
		}
		out = append(out, m)
	}
	if !found {
		out = append(out, Member{Key: key, Value: value})
	}
	return out
}

// Encode writes ms as a JSON object, keys escaped without HTML escaping and
// values as given.
func Encode(ms []Member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(String(m.Key))
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// String encodes s as a JSON string without HTML escaping.
func String(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
