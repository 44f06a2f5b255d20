package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// parseStrict parses exactly one JSON value the way CanonicalPayload needs
// it: objects as map[string]any, arrays as []any, numbers as json.Number
// (the text as written), refusing duplicate keys and invalid UTF-8. Its
// recursion follows the nesting of data, which the caller bounds first
// (BoundPayload), so hostile nesting costs neither stack nor memory.
func parseStrict(data []byte) (any, *PayloadProblem) {
	// Duplicates are found below, where the path is known; the tokenizer
	// still checks UTF-8, escapes, numbers and the grammar.
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	p := strictParser{dec: dec}
	v, prob := p.value("")
	if prob != nil {
		return nil, prob
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, &PayloadProblem{Kind: PayloadMalformed, Message: fmt.Sprintf(
			"unexpected data after the arguments at offset %d: send exactly one JSON object", dec.InputOffset())}
	}
	return v, nil
}

type strictParser struct {
	dec *jsontext.Decoder
}

func (p *strictParser) value(path string) (any, *PayloadProblem) {
	tok, err := p.dec.ReadToken()
	if err != nil {
		return nil, p.syntax(err)
	}
	switch tok.Kind() {
	case '{':
		obj := map[string]any{}
		for p.dec.PeekKind() != '}' {
			name, err := p.dec.ReadToken()
			if err != nil {
				return nil, p.syntax(err)
			}
			key := name.String()
			at := joinPath(path, key)
			if _, dup := obj[key]; dup {
				return nil, &PayloadProblem{Kind: PayloadDuplicateKey, Path: at, Message: fmt.Sprintf(
					"the key %s appears more than once in one object: send each key once", quoteKey(key))}
			}
			v, prob := p.value(at)
			if prob != nil {
				return nil, prob
			}
			obj[key] = v
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, p.syntax(err)
		}
		return obj, nil
	case '[':
		arr := []any{}
		for p.dec.PeekKind() != ']' {
			v, prob := p.value(path + "[" + strconv.Itoa(len(arr)) + "]")
			if prob != nil {
				return nil, prob
			}
			arr = append(arr, v)
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, p.syntax(err)
		}
		return arr, nil
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 't', 'f':
		return tok.Bool(), nil
	case 'n':
		return nil, nil
	}
	return nil, &PayloadProblem{Kind: PayloadMalformed, Message: fmt.Sprintf("unexpected %v at offset %d", tok.Kind(), p.dec.InputOffset())}
}

// syntax turns a tokenizer error into a problem naming the offset. An
// error at the very end means the value is incomplete.
func (p *strictParser) syntax(err error) *PayloadProblem {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &PayloadProblem{Kind: PayloadMalformed, Message: "unexpected end of the arguments: the JSON value is incomplete"}
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return &PayloadProblem{Kind: PayloadMalformed, Message: fmt.Sprintf("invalid JSON at offset %d: %v", se.ByteOffset, se.Err)}
	}
	return &PayloadProblem{Kind: PayloadMalformed, Message: "invalid JSON: " + err.Error()}
}

// joinPath appends an object key to a path in ValidationError's notation.
func joinPath(path, key string) string {
	if identLike(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// quoteKey quotes a model-written key for a message, cut to a readable
// length so a hostile key cannot flood the model's context.
func quoteKey(k string) string {
	const max = 64
	if r := []rune(k); len(r) > max {
		return strconv.Quote(string(r[:max])) + "…"
	}
	return strconv.Quote(k)
}
