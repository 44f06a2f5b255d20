package server

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every route of the API has its line in the front door's table, and the
// table names no route the API does not have: a method added to the design
// without one would be served without its key and role checked first.
func TestEveryRouteIsGuarded(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	var api []string
	for path, methods := range doc.Paths {
		for m := range methods {
			api = append(api, strings.ToUpper(m)+" "+param.ReplaceAllString(path, "{}"))
		}
	}
	var table []string
	for _, r := range routes {
		if r.access != open {
			table = append(table, r.method+" "+r.path)
		}
	}
	slices.Sort(api)
	slices.Sort(table)
	if !slices.Equal(api, table) {
		t.Fatalf("the OpenAPI document's routes:\n%s\nthe front door's:\n%s", strings.Join(api, "\n"), strings.Join(table, "\n"))
	}
	for _, r := range routes {
		if (r.method == http.MethodGet || r.method == http.MethodDelete) && r.body != noBody {
			t.Errorf("%s %s reads a body", r.method, r.path)
		}
	}
}

func TestMatchTakesOneSegmentPerParameter(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{http.MethodPost, "/v1/calls/abc/result", true},
		{http.MethodPost, "/v1/calls/a/b/result", false},
		{http.MethodPost, "/v1/calls//result", false},
		{http.MethodPost, "/v1/calls/a%2Fb/result", true}, // one escaped segment, refused by pathParams
		{http.MethodPost, "/v1/calls", true},
		{http.MethodGet, "/v1/calls", false},
		{http.MethodGet, "/v2/calls/abc", false},
		{http.MethodPut, "/v1/toolsets", false},
	} {
		if _, _, ok := match(tc.method, tc.path); ok != tc.want {
			t.Errorf("%s %s matched %v, want %v", tc.method, tc.path, ok, tc.want)
		}
	}
}
