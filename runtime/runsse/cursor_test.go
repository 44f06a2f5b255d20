package runsse

import (
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCursor: parseCursor accepts exactly the decimal integers 0 to
// MaxInt64, returns their value, and refuses the rest with errBadRequest,
// quoting at most 64 bytes of what it was sent.
func FuzzCursor(f *testing.F) {
	for _, s := range []string{"", "0", "7", "007", "9223372036854775807", "9223372036854775808", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "abc", "١٢", "\x00", strings.Repeat("9", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseCursor("after", s)
		want, werr := strconv.ParseUint(s, 10, 63)
		digits := s != "" && strings.Trim(s, "0123456789") == ""
		switch {
		case digits && werr == nil:
			if err != nil || n != int64(want) {
				t.Fatalf("parseCursor(%q) = %d, %v; want %d", s, n, err, want)
			}
		case err == nil:
			t.Fatalf("parseCursor(%q) = %d, want an error", s, n)
		case !errors.Is(err, errBadRequest):
			t.Fatalf("parseCursor(%q): %v does not wrap errBadRequest", s, err)
		case !strings.Contains(err.Error(), "after"):
			t.Fatalf("parseCursor(%q): %v does not say where the cursor came from", s, err)
		case len(err.Error()) > 512: // 64 bytes quoted, each 4 at most, and the message
			t.Fatalf("parseCursor(%q): an error of %d bytes", s, len(err.Error()))
		case !utf8.ValidString(err.Error()):
			t.Fatalf("parseCursor(%q): the error is not UTF-8: %q", s, err)
		}
	})
}

// TestRequestCursor: where a request's cursor comes from.
func TestRequestCursor(t *testing.T) {
	for _, tc := range []struct {
		target, lastID string
		want           int64
		err            string
	}{
		{"/", "", 0, ""},
		{"/?after=5", "", 5, ""},
		{"/?after=5", "9", 9, ""},
		{"/", "12", 12, ""},
		{"/?after=x", "3", 3, ""}, // the header wins, as EventSource resends the first URL
		{"/?after=3", "x", 0, "Last-Event-ID"},
		{"/?after=", "", 0, "after is empty"},
		{"/?after=1&after=1", "", 0, "given 2 times"},
	} {
		r := httptest.NewRequest("GET", tc.target, nil)
		if tc.lastID != "" {
			r.Header.Set("Last-Event-ID", tc.lastID)
		}
		got, err := requestCursor(r)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s, Last-Event-ID %q: %d, %v; want an error with %q", tc.target, tc.lastID, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s, Last-Event-ID %q: %d, %v; want %d", tc.target, tc.lastID, got, err, tc.want)
		}
	}
}
