package httpauth

import "net/http"

// BearerTransport sends Key as a bearer credential on every request it
// carries, through Base (http.DefaultTransport when nil). With an empty Key
// it adds nothing. It replaces an Authorization header the request already
// has.
type BearerTransport struct {
	// Key is the credential; empty sends none.
	Key string
	// Base carries the requests; http.DefaultTransport when nil.
	Base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t BearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.Key == "" {
		return base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.Key)
	return base.RoundTrip(r)
}
