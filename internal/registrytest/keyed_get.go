package registrytest

import (
	"io"
	"net/http"
	"net/http/httptrace"
	"testing"
)

// KeyedGet sends GET url with key as its bearer key (none when empty) on c
// and returns the status and whether the request went over a connection
// used before: the key-rotation tests show a reload keeps connections.
func KeyedGet(t testing.TB, c *http.Client, url, key string) (status int, reused bool) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
	}))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, reused
}
