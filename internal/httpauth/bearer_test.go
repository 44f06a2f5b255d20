package httpauth_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/quiver-go/quiver/internal/httpauth"
)

// TestBearerTransport: the key goes out as a bearer credential, replacing
// one the request had, the caller's request is left as it was, and an
// empty key sends no header.
func TestBearerTransport(t *testing.T) {
	got := make(chan string, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, sent := r.Header["Authorization"]
		if !sent {
			got <- "(none)"
			return
		}
		got <- r.Header.Get("Authorization")
	}))
	defer hs.Close()
	for _, tc := range []struct{ key, had, want string }{
		{"secret", "", "Bearer secret"},
		{"secret", "Bearer other", "Bearer secret"},
		{"", "", "(none)"},
	} {
		req, err := http.NewRequest(http.MethodGet, hs.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.had != "" {
			req.Header.Set("Authorization", tc.had)
		}
		c := &http.Client{Transport: httpauth.BearerTransport{Key: tc.key, Base: hs.Client().Transport}}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if sent := <-got; sent != tc.want {
			t.Errorf("key %q: the server read Authorization %q, want %q", tc.key, sent, tc.want)
		}
		if req.Header.Get("Authorization") != tc.had {
			t.Errorf("key %q: the caller's request was changed: %q", tc.key, req.Header.Get("Authorization"))
		}
	}
}
