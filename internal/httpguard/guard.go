package httpguard

import (
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// LoopbackHost reports whether host — a Host header or an address, with or
// without a port — names the loopback interface: localhost, 127.0.0.0/8 or
// ::1. An empty host (all interfaces) does not.
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrForeignHost is returned by CheckHost.
var ErrForeignHost = errors.New("httpguard: the Host header does not name the loopback interface")

// CheckHost refuses a request whose Host header names anything but the
// loopback interface: a page that rebinds its own name to 127.0.0.1 sends
// its name.
func CheckHost(r *http.Request) error {
	if !LoopbackHost(r.Host) {
		return fmt.Errorf("%w (Host %q): this server answers only localhost, 127.0.0.1 and [::1]", ErrForeignHost, clip(r.Host))
	}
	return nil
}

// ErrCrossOrigin is returned by CheckOrigin.
var ErrCrossOrigin = errors.New("httpguard: cross-origin request refused")

// CheckOrigin refuses a request a browser sent from another origin, whatever
// its method: Sec-Fetch-Site other than same-origin or none (a page on
// another port of localhost is "same-site", and refused), or an Origin
// whose host and port are not the request's Host. Requests without either
// header — every non-browser client — pass. For unsafe methods this is what
// net/http's CrossOriginProtection checks; reads are checked too, since a
// provider's call stream is a GET.
func CheckOrigin(r *http.Request) error {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Errorf("%w (Sec-Fetch-Site: %s): call this server from a program, not from a web page", ErrCrossOrigin, clip(site))
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	if u, err := url.Parse(origin); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	return fmt.Errorf("%w (Origin %q is not this server's): call this server from a program, not from a web page", ErrCrossOrigin, clip(origin))
}

// ErrNotJSON is returned by CheckJSONBody.
var ErrNotJSON = errors.New("httpguard: the request body is not declared application/json")

// HasBody reports whether r carries a body: a positive Content-Length, or
// a chunked one (-1).
func HasBody(r *http.Request) bool {
	return r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody
}

// CheckJSONBody refuses a request with a body whose Content-Type is not
// application/json (parameters such as charset are accepted): a web page
// can send text/plain, form and multipart bodies anywhere without asking.
func CheckJSONBody(r *http.Request) error {
	if !HasBody(r) {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return nil
	}
	return fmt.Errorf("%w (Content-Type %q): send the body as Content-Type: application/json", ErrNotJSON, clip(ct))
}

// clip bounds what an error repeats of a header.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
