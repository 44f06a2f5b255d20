package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/registry/internal/registrytest"
	"github.com/quiver-go/quiver/tools/contract"
)

func TestProbeBadInput(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{MaxBodyBytes: 4096})
	decl := registrytest.Echo("echo")
	raw, _ := json.Marshal(decl)
	fp, _ := contract.Fingerprint(decl)
	fmt.Println("decl size", len(raw))
	do := func(method, path, body string, chunked bool) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
			if chunked {
				rd = io.MultiReader(rd)
			}
		}
		req, _ := http.NewRequest(method, r.URL+path, rd)
		if chunked {
			req.ContentLength = -1
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(method, path, "ERR", err)
			return
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 600))
		resp.Body.Close()
		fmt.Printf("%s %s [%.60s] -> %d %s %s\n", method, path, body, resp.StatusCode, resp.Header.Get("Content-Type"), bytes.TrimSpace(b))
	}
	good := fmt.Sprintf(`{"kind":"tool_schemas","toolset":%s,"fingerprint":%q,"revision":"r1"}`, raw, fp)
	do("POST", "/v1/registrations", good, false)
	do("POST", "/v1/registrations", good+"xyz", false)
	do("POST", "/v1/registrations", `{"kind":`, false)
	do("POST", "/v1/registrations", ``, false)
	do("POST", "/v1/registrations", `null`, false)
	do("POST", "/v1/registrations", `[]`, false)
	do("POST", "/v1/registrations", `{"kind":5}`, false)
	do("POST", "/v1/registrations", `{"kindd":"x"}`, false)
	do("POST", "/v1/registrations", `{"kind":"tool_schemas"}`, false)
	do("POST", "/v1/registrations", `{"kind":"x","toolset":{},"fingerprint":"f","revision":"r","max_in_flight":0}`, false)
	do("POST", "/v1/registrations", `{"kind":"tool_schemas","toolset":{},"fingerprint":"f","revision":"r","max_in_flight":1.5}`, false)
	do("POST", "/v1/registrations", `{"kind":"tool_schemas","toolset":"echo","fingerprint":"f","revision":"r"}`, false)
	do("POST", "/v1/registrations", `{"kind":"tool_schemas","toolset":{"name":"x","tools":[]},"fingerprint":"f","revision":"r"}`, false)
	do("POST", "/v1/registrations", `{"kind":"tool_schemas","toolset":{"name":"x","bogus":1,"tools":[]},"fingerprint":"f","revision":"r"}`, false)
	do("POST", "/v1/registrations", `{"kind":"tool_schemas","toolset":{"name":"x","tools":[{"name":"a.b"},{"name":"c","title":"C","input_schema":{"type":"string"}}]},"fingerprint":"f","revision":"r"}`, false)
	do("POST", "/v1/registrations", fmt.Sprintf(`{"kind":"tool_schemas","toolset":%s,"fingerprint":"sha256:nope","revision":"r1"}`, raw), false)
	do("POST", "/v1/registrations", fmt.Sprintf(`{"kind":"tool_schemas","toolset":%s,"fingerprint":"x","revision":"r1"}`, strings.Replace(string(raw), "Test tools", "Other tools", 1)), false)
	do("POST", "/v1/registrations", `{"kind":"schema_only","toolset":{},"fingerprint":"f","revision":"r"}`, false)
	do("POST", "/v1/registrations", `{"kind":"tool_schemas","toolset":{},"fingerprint":"f","revision":"r","execution":"agent"}`, false)
	big := `{"kind":"tool_schemas","toolset":{"name":"` + strings.Repeat("a", 5000) + `"},"fingerprint":"f","revision":"r"}`
	do("POST", "/v1/registrations", big, false)
	do("POST", "/v1/registrations", big, true)
	do("POST", "/v1/registrations", good+strings.Repeat(" ", 5000), true)
	do("POST", "/v1/leases/nope/renew", ``, false)
	do("POST", "/v1/leases/nope/drain", ``, false)
	do("DELETE", "/v1/leases/nope", ``, false)
	do("DELETE", "/v1/toolsets/nope", ``, false)
	do("GET", "/v1/leases/nope/calls", ``, false)
	do("POST", "/v1/calls/nope/result", `{"lease_id":"l"}`, false)
	do("POST", "/v1/calls/nope/result", `{"lease_id":"l","result":1,"error":"e"}`, false)
	do("POST", "/v1/calls/nope/result", `{"result":1}`, false)
	do("GET", "/v1/toolsets/nope", ``, false)
	do("GET", "/v1/toolsets?tag=zzz", ``, false)
	do("GET", "/v1/search", ``, false)
	do("GET", "/v1/search?q=x&limit=abc", ``, false)
	do("GET", "/v1/search?q=x&limit=0", ``, false)
	do("GET", "/v1/toolsets/nope/resolve?at_revision=abc", ``, false)
	do("GET", "/v1/toolsets/echo/resolve?version=9", ``, false)
	do("GET", "/v1/catalog/changes?after=-1", ``, false)
	do("GET", "/v1/catalog/changes?wait_ms=-1", ``, false)
	do("GET", "/v1/catalog/changes?after=x", ``, false)
	do("POST", "/v1/resolve", ``, false)
	do("GET", "/v1/calls/nope", ``, false)
	do("POST", "/v1/calls", `{"toolset":"echo","tool":"echo","payload":{},"token":"t","call_id":""}`, false)
	do("POST", "/v1/calls", `{"toolset":"echo","tool":"echo","payload":{},"token":"t","call_id":"a","timeout_ms":0}`, false)
	do("POST", "/v1/calls", `{"toolset":"echo","tool":"echo","payload":null,"token":"t","call_id":"a"}`, false)
	do("POST", "/v1/calls", `{"toolset":"nope","tool":"echo","payload":{},"token":"t","call_id":"a","timeout_ms":5}`, false)
	do("POST", "/v1/calls", `{"toolset":"echo","tool":"nope","payload":{},"token":"t","call_id":"a","timeout_ms":5}`, false)
	do("POST", "/v1/calls", `{"toolset":"echo","tool":"echo","payload":{},"token":"t","call_id":"a","timeout_ms":5}`, false)
	do("GET", "/v1/toolsets/a%2Fb", ``, false)
	do("GET", "/nope", ``, false)
}
