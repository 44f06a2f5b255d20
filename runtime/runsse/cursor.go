package runsse

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// maxRunIDBytes bounds the run id a request may name.
const maxRunIDBytes = 1024

// errBadRequest is wrapped by the errors a request's run id or cursor is
// refused with (400).
var errBadRequest = errors.New("runsse: bad request")

// requestCursor returns the request's cursor: the Last-Event-ID header
// when it is set and not empty (EventSource sends it on reconnecting, with
// the URL it first opened, so it wins over the query), else the "after"
// query parameter, else 0.
func requestCursor(r *http.Request) (int64, error) {
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		return parseCursor("Last-Event-ID", v)
	}
	vs, ok := r.URL.Query()["after"]
	switch {
	case !ok:
		return 0, nil
	case len(vs) > 1:
		return 0, fmt.Errorf("%w: the after query parameter is given %d times: give it once", errBadRequest, len(vs))
	}
	return parseCursor("after", vs[0])
}

// parseCursor parses a cursor — the sequence number of the last event a
// client holds — written in decimal ASCII digits, 0 or more and within
// int64. Anything else fails wrapping errBadRequest, naming where it came
// from (a header or query parameter) and what was wrong with it.
func parseCursor(from, v string) (int64, error) {
	if v == "" {
		return 0, fmt.Errorf("%w: %s is empty: give the id (sequence number) of the last event received, 0 or more", errBadRequest, from)
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, fmt.Errorf("%w: %s %s is not a non-negative integer: give the id (sequence number) of the last event received, in decimal digits", errBadRequest, from, quote(v))
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s %s is too large for an event id: give the id of the last event received", errBadRequest, from, quote(v))
	}
	return n, nil
}

// checkRunID reports what is wrong with a run id a request names.
func checkRunID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: no run id: name the run in the path ({run}) or as the run query parameter", errBadRequest)
	case len(id) > maxRunIDBytes:
		return fmt.Errorf("%w: the run id is %d bytes, over %d: name a run the run log holds", errBadRequest, len(id), maxRunIDBytes)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: the run id %s is not UTF-8: name a run the run log holds", errBadRequest, quote(id))
	}
	for _, c := range id {
		if unicode.IsControl(c) {
			return fmt.Errorf("%w: the run id %s holds a control character: name a run the run log holds", errBadRequest, quote(id))
		}
	}
	return nil
}

// quote quotes at most 64 bytes of what a request sent, for an error.
func quote(s string) string {
	const max = 64
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:max]) + "…"
}
