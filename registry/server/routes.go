package server

import (
	"net/http"
	"strings"
)

// access is what a route asks of the caller's key, checked before its body
// is read.
type access int

const (
	// open routes need no key: the OpenAPI document and the probes.
	open access = iota
	// consume routes read the catalog or call tools: consumer or admin.
	consume
	// publish routes register and serve toolsets: provider or admin (a
	// provider's globs are checked against the toolset once it is known).
	publish
)

// bodyLimit names the bound a route puts on its request body.
type bodyLimit int

const (
	// noBody: the route reads no body.
	noBody bodyLimit = iota
	// callBody: a call's envelope around its payload (MaxPayloadBytes).
	callBody
	// largeBody: a registration or a posted result (MaxBodyBytes).
	largeBody
)

// callEnvelopeBytes is what a call's body may hold beyond its payload: the
// toolset, tool, token, run and call ids.
const callEnvelopeBytes = 64 << 10

// apiRoute is one API route as the front door sees it: its method and path,
// where "{}" is one path parameter.
type apiRoute struct {
	method string
	path   string
	access access
	body   bodyLimit
	// nameParam is the index of the path segment naming a toolset, whose
	// globs a provider key must match (-1: none known before the body).
	nameParam int
	// segments is path split at its slashes, once (withSegments).
	segments []string
}

// routes lists every route of the registry's API (TestEveryRouteIsGuarded
// checks it against the OpenAPI document), with what each asks.
var routes = withSegments([]apiRoute{
	{http.MethodPost, "/v1/registrations", publish, largeBody, -1, nil},
	{http.MethodPost, "/v1/leases/{}/renew", publish, noBody, -1, nil},
	{http.MethodPost, "/v1/leases/{}/drain", publish, noBody, -1, nil},
	{http.MethodDelete, "/v1/leases/{}", publish, noBody, -1, nil},
	{http.MethodGet, "/v1/leases/{}/calls", publish, noBody, -1, nil},
	{http.MethodDelete, "/v1/toolsets/{}", publish, noBody, 2, nil},
	{http.MethodPost, "/v1/calls/{}/result", publish, largeBody, -1, nil},
	{http.MethodGet, "/v1/toolsets", consume, noBody, -1, nil},
	{http.MethodGet, "/v1/toolsets/{}", consume, noBody, -1, nil},
	{http.MethodGet, "/v1/search", consume, noBody, -1, nil},
	{http.MethodGet, "/v1/toolsets/{}/resolve", consume, noBody, -1, nil},
	{http.MethodGet, "/v1/resolve", consume, noBody, -1, nil},
	{http.MethodGet, "/v1/catalog/changes", consume, noBody, -1, nil},
	{http.MethodPost, "/v1/calls", consume, callBody, -1, nil},
	{http.MethodGet, "/v1/calls/{}", consume, noBody, -1, nil},
	{http.MethodGet, "/openapi.json", open, noBody, -1, nil},
	{http.MethodGet, "/healthz", open, noBody, -1, nil},
	{http.MethodGet, "/readyz", open, noBody, -1, nil},
})

// withSegments splits each route's path once, so that matching a request
// splits only the request's.
func withSegments(rs []apiRoute) []apiRoute {
	for i := range rs {
		rs[i].segments = strings.Split(strings.TrimPrefix(rs[i].path, "/"), "/")
	}
	return rs
}

// match finds the route of a request and its path segments; ok is false
// for a path or method the API does not serve.
func match(method, path string) (rt apiRoute, segments []string, ok bool) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for _, r := range routes {
		if r.method != method && !(method == http.MethodHead && r.method == http.MethodGet) {
			continue
		}
		want := r.segments
		if len(want) != len(segs) {
			continue
		}
		same := true
		for i, w := range want {
			if w == "{}" {
				if segs[i] == "" {
					same = false
				}
			} else if w != segs[i] {
				same = false
			}
		}
		if same {
			return r, segs, true
		}
	}
	return apiRoute{}, nil, false
}
