package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Query is one labelled request.
type Query struct {
	// ID identifies the query within its set.
	ID string `json:"id"`
	// Query is the request text given to the ranker.
	Query string `json:"query"`
	// Relevant names the tools that answer the query, as the catalog names
	// them.
	Relevant []string `json:"relevant"`
}

// ReadQueries reads JSON Lines queries from r. Blank lines are skipped. Every
// query must have a non-empty "id" unique in the set, a non-blank "query" and
// a non-empty "relevant" array of distinct, non-empty tool names; other
// fields are ignored. Errors name source and the line, e.g.
// `queries.jsonl:17: "relevant" must be a non-empty array of tool names`.
// A set without any query is an error.
func ReadQueries(r io.Reader, source string) ([]Query, error) {
	br := bufio.NewReader(r)
	var out []Query
	firstLine := make(map[string]int)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("eval: %s:%d: %w", source, lineNo, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			q, perr := parseQuery(line)
			if perr != nil {
				return nil, fmt.Errorf("eval: %s:%d: %w", source, lineNo, perr)
			}
			if prev, dup := firstLine[q.ID]; dup {
				return nil, fmt.Errorf("eval: %s:%d: id %q repeats line %d", source, lineNo, q.ID, prev)
			}
			firstLine[q.ID] = lineNo
			out = append(out, q)
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("eval: %s: no queries", source)
	}
	return out, nil
}

// parseQuery decodes and validates one line.
func parseQuery(line []byte) (Query, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Query{}, fmt.Errorf("want one JSON object per line: %w", err)
	}
	var q Query
	if err := unmarshalField(raw, "id", &q.ID); err != nil || q.ID == "" {
		return Query{}, errors.New(`"id" must be a non-empty string`)
	}
	if err := unmarshalField(raw, "query", &q.Query); err != nil || strings.TrimSpace(q.Query) == "" {
		return Query{}, errors.New(`"query" must be a non-empty string`)
	}
	if err := unmarshalField(raw, "relevant", &q.Relevant); err != nil || len(q.Relevant) == 0 {
		return Query{}, errors.New(`"relevant" must be a non-empty array of tool names`)
	}
	for i, name := range q.Relevant {
		if name == "" {
			return Query{}, fmt.Errorf(`"relevant"[%d] is empty: want a tool name`, i)
		}
		if slices.Contains(q.Relevant[:i], name) {
			return Query{}, fmt.Errorf(`"relevant" lists %q twice`, name)
		}
	}
	return q, nil
}

// unmarshalField decodes raw[key] into v; a missing key or JSON null is an
// error.
func unmarshalField(raw map[string]json.RawMessage, key string, v any) error {
	m, ok := raw[key]
	if !ok || string(bytes.TrimSpace(m)) == "null" {
		return fmt.Errorf("%q is missing", key)
	}
	return json.Unmarshal(m, v)
}
