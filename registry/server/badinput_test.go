package server_test

// Bad input on every endpoint, sent as raw HTTP so that malformed bodies
// reach the server: each must be a typed Goa error with the design's
// status and a message that says what was wrong, never a 500, and the
// server keeps serving afterwards.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/tools/contract"
)

// badErr is a Goa error body.
type badErr struct {
	Name      string `json:"name"`
	ID        string `json:"id"`
	Message   string `json:"message"`
	Temporary bool   `json:"temporary"`
	Timeout   bool   `json:"timeout"`
	Fault     bool   `json:"fault"`
}

// badCase is one raw request and what must come back.
type badCase struct {
	name   string
	method string
	path   string
	body   string
	// chunked sends the body with no Content-Length.
	chunked bool
	// auth is the Authorization header ("" sends none).
	auth string
	// header is one more request header, name and value.
	header [2]string
	status int
	// errName and phrase are the error body's name and a phrase of its
	// message (for error statuses).
	errName string
	phrase  string
}

// badDo sends c to the registry at base and returns the status and body.
func badDo(t *testing.T, base string, c badCase) (int, http.Header, []byte) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
		if c.chunked {
			body = io.MultiReader(body) // no length: sent chunked
		}
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.chunked {
		req.ContentLength = -1
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	switch c.header[0] {
	case "":
	case "Host":
		req.Host = c.header[1]
	default:
		req.Header.Set(c.header[0], c.header[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read the answer: %v", c.method, c.path, err)
	}
	return resp.StatusCode, resp.Header, b
}

// badCheck sends c and checks the status, the error's name and message,
// and that nothing is a server fault.
func badCheck(t *testing.T, base string, c badCase) {
	t.Helper()
	status, h, b := badDo(t, base, c)
	if status >= 500 {
		t.Fatalf("%s %s: status %d (a server fault): %s", c.method, c.path, status, b)
	}
	if status != c.status {
		t.Fatalf("%s %s: status %d, want %d: %s", c.method, c.path, status, c.status, b)
	}
	if status < 400 {
		return
	}
	e, err := badDecodeErr(h, b)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	if e.Name != c.errName {
		t.Fatalf("%s %s: error %q (%s), want %q", c.method, c.path, e.Name, e.Message, c.errName)
	}
	if !strings.Contains(e.Message, c.phrase) {
		t.Fatalf("%s %s: error %s: message %q does not say %q", c.method, c.path, e.Name, e.Message, c.phrase)
	}
}

// badDecodeErr decodes a Goa error body exactly: JSON, every field, a
// name, an id and a message, not a fault.
func badDecodeErr(h http.Header, b []byte) (badErr, error) {
	var e badErr
	if ct := h.Get("Content-Type"); !strings.Contains(ct, "json") {
		return e, fmt.Errorf("error body of type %q, want JSON: %q", ct, b)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, fmt.Errorf("error body %q is not a Goa error: %v", b, err)
	}
	if e.Name == "" || e.ID == "" || e.Message == "" || e.Fault {
		return e, fmt.Errorf("incomplete or faulty error body: %s", b)
	}
	return e, nil
}

// badRegistration is a register body for decl under revision, with its
// fingerprint unless fp is given, and more fields appended.
func badRegistration(t testing.TB, decl contract.ToolsetDeclaration, revision, fp, more string) string {
	t.Helper()
	raw, err := json.Marshal(decl)
	if err != nil {
		t.Fatal(err)
	}
	if fp == "" {
		if fp, err = contract.Fingerprint(decl); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf(`{"kind":"tool_schemas","toolset":%s,"fingerprint":%q,"revision":%q%s}`, raw, fp, revision, more)
}

func TestBadInputOnEveryEndpoint(t *testing.T) {
	const limit = 4 << 10
	r := registrytest.Start(t, registrytest.Options{MaxBodyBytes: limit, MaxPayloadBytes: limit, LeaseTTL: time.Minute})
	c := r.Client(t, "")
	registrytest.Serve(t, c, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, registrytest.NewCounter())
	ts := registrytest.WaitProviders(t, c, "echo", 1)

	// A call published to lease a of "raw", and lease b of the same
	// toolset it was not handed to.
	a := registrytest.Register(t, c, registrytest.Echo("raw"), "r1", 1, true)
	b := registrytest.Register(t, c, registrytest.Echo("raw"), "r1", 1, false)
	inFlight := async(c, "raw", "echo", a.Lease.Token, "in-flight", `{"text":"x"}`, 30*time.Second)
	frame := <-a.Frames
	// A toolset removed after a catalog revision.
	gone := registrytest.Register(t, c, registrytest.Echo("gone"), "r1", 1, false)
	if err := c.Unregister(t.Context(), unregister("gone")); err != nil {
		t.Fatal(err)
	}

	echoDecl := registrytest.Echo("echo")
	changed := registrytest.Echo("echo")
	changed.Description = "Another contract under the same revision."
	noTools := registrytest.Echo("empty")
	noTools.Tools = nil
	invalid := registrytest.Echo("broken")
	invalid.Tools[0].Title = ""
	invalid.Tools[1].Name = "a.b"
	invalid.Tools[2].InputSchema = json.RawMessage(`{"type":"string"}`)
	unknownField := strings.Replace(badRegistration(t, registrytest.Echo("extra"), "r1", "", ""), `"name":"extra"`, `"name":"extra","owner":"me"`, 1)
	fp, _ := contract.Fingerprint(echoDecl)
	huge := strings.Repeat("a", 2*limit)
	// A call's body may hold 64 KiB more than its payload.
	hugeCall := strings.Repeat("a", 2*limit+64<<10)
	call := func(fields string) string {
		return `{"toolset":"echo","tool":"echo","payload":{"text":"x"},"token":"` + ts.Token + `","call_id":"bad-1","timeout_ms":1000` + fields + `}`
	}
	result := "/v1/calls/" + *frame.CallID + "/result"

	cases := []badCase{
		// register
		{name: "register: malformed JSON", method: "POST", path: "/v1/registrations", body: `{"kind":`, status: 400, errName: "bad_request", phrase: "unexpected EOF"},
		{name: "register: not JSON", method: "POST", path: "/v1/registrations", body: `kind=tool_schemas`, status: 400, errName: "bad_request", phrase: "invalid character"},
		{name: "register: empty body", method: "POST", path: "/v1/registrations", status: 400, errName: "bad_request", phrase: "missing required payload"},
		{name: "register: an array", method: "POST", path: "/v1/registrations", body: `[]`, status: 400, errName: "bad_request", phrase: "must be a JSON object, not an array"},
		{name: "register: wrong type", method: "POST", path: "/v1/registrations", body: `{"kind":5}`, status: 400, errName: "bad_request", phrase: "kind"},
		{name: "register: wrong type of max_in_flight", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "", `,"max_in_flight":1.5`), status: 400, errName: "bad_request", phrase: "max_in_flight"},
		{name: "register: unknown field", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "", `,"priority":1`), status: 400, errName: "bad_request", phrase: `unknown field "priority"`},
		{name: "register: missing fields", method: "POST", path: "/v1/registrations", body: `{"kind":"tool_schemas"}`, status: 400, errName: "bad_request", phrase: `"fingerprint" is missing`},
		{name: "register: null", method: "POST", path: "/v1/registrations", body: `null`, status: 400, errName: "bad_request", phrase: `"toolset" is missing`},
		{name: "register: unknown kind", method: "POST", path: "/v1/registrations", body: strings.Replace(badRegistration(t, echoDecl, "r1", "", ""), "tool_schemas", "openapi", 1), status: 400, errName: "bad_request", phrase: "body.kind"},
		{name: "register: unknown execution", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "", `,"execution":"lambda"`), status: 400, errName: "bad_request", phrase: "body.execution"},
		{name: "register: max_in_flight 0", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "", `,"max_in_flight":0`), status: 400, errName: "bad_request", phrase: "max_in_flight"},
		{name: "register: max_in_flight over 4096", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "", `,"max_in_flight":5000`), status: 400, errName: "bad_request", phrase: "max_in_flight"},
		{name: "register: fingerprint not a contract fingerprint", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "md5:abc", ""), status: 400, errName: "bad_request", phrase: `fingerprint "md5:abc" is not a contract fingerprint`},
		{name: "register: empty revision", method: "POST", path: "/v1/registrations", body: badRegistration(t, registrytest.Echo("blank"), " ", "", ""), status: 400, errName: "bad_request", phrase: "revision is empty"},
		{name: "register: schema_only", method: "POST", path: "/v1/registrations", body: strings.Replace(badRegistration(t, echoDecl, "r1", "", ""), "tool_schemas", "schema_only", 1), status: 422, errName: "unsupported_contract", phrase: "ToolSchemas()"},
		{name: "register: execution agent", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "", `,"execution":"agent"`), status: 422, errName: "unsupported_contract", phrase: `execution "agent" is refused`},
		{name: "register: execution planner_control", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "", `,"execution":"planner_control"`), status: 422, errName: "unsupported_contract", phrase: `execution "planner_control" is refused`},
		{name: "register: toolset not an object", method: "POST", path: "/v1/registrations", body: `{"kind":"tool_schemas","toolset":"echo","fingerprint":"sha256:x","revision":"r1"}`, status: 422, errName: "invalid_declaration", phrase: "not a toolset declaration"},
		{name: "register: declaration with an unknown field", method: "POST", path: "/v1/registrations", body: unknownField, status: 422, errName: "invalid_declaration", phrase: `unknown field "owner"`},
		{name: "register: declaration with no tool", method: "POST", path: "/v1/registrations", body: badRegistration(t, noTools, "r1", "", ""), status: 422, errName: "invalid_declaration", phrase: `toolset "empty" declares no tool`},
		{name: "register: invalid declaration lists its problems", method: "POST", path: "/v1/registrations", body: badRegistration(t, invalid, "r1", "sha256:x", ""), status: 422, errName: "invalid_declaration", phrase: "title is empty"},
		{name: "register: invalid declaration lists the dotted name", method: "POST", path: "/v1/registrations", body: badRegistration(t, invalid, "r1", "sha256:x", ""), status: 422, errName: "invalid_declaration", phrase: `tool name "a.b" contains a dot`},
		{name: "register: invalid declaration lists the schema", method: "POST", path: "/v1/registrations", body: badRegistration(t, invalid, "r1", "sha256:x", ""), status: 422, errName: "invalid_declaration", phrase: `root "type" must be "object"`},
		{name: "register: fingerprint not the declaration's", method: "POST", path: "/v1/registrations", body: badRegistration(t, echoDecl, "r1", "sha256:not-it", ""), status: 422, errName: "fingerprint_mismatch", phrase: "fingerprint is " + fp + ", the request says sha256:not-it"},
		{name: "register: same revision, another fingerprint", method: "POST", path: "/v1/registrations", body: badRegistration(t, changed, "r1", "", ""), status: 409, errName: "revision_conflict", phrase: `revision "r1" of toolset "echo" is registered with another fingerprint`},
		{name: "register: oversize with Content-Length", method: "POST", path: "/v1/registrations", body: `{"kind":"tool_schemas","revision":"` + huge + `"}`, status: 413, errName: "payload_too_large", phrase: "over the registry's limit of 4 KiB"},
		{name: "register: oversize chunked", method: "POST", path: "/v1/registrations", body: `{"kind":"tool_schemas","revision":"` + huge + `"}`, chunked: true, status: 413, errName: "payload_too_large", phrase: "over the registry's limit"},
		// renew, drain, release, unregister, calls
		{name: "renew: unknown lease", method: "POST", path: "/v1/leases/lease_nope/renew", status: 410, errName: "lease_expired", phrase: `lease "lease_nope" ended`},
		{name: "renew: oversize body", method: "POST", path: "/v1/leases/lease_nope/renew", body: huge, status: 413, errName: "payload_too_large", phrase: "over the registry's limit"},
		{name: "drain: unknown lease", method: "POST", path: "/v1/leases/lease_nope/drain", status: 410, errName: "lease_expired", phrase: `lease "lease_nope" ended`},
		{name: "drain: a lease id of odd bytes", method: "POST", path: "/v1/leases/%00%FF%20x/drain", status: 400, errName: "bad_request", phrase: "control character"},
		{name: "release: unknown lease is released already", method: "DELETE", path: "/v1/leases/lease_nope", status: 204},
		{name: "unregister: unknown toolset", method: "DELETE", path: "/v1/toolsets/nope", status: 404, errName: "not_found", phrase: `no toolset "nope"`},
		{name: "calls: unknown lease", method: "GET", path: "/v1/leases/lease_nope/calls", status: 410, errName: "lease_expired", phrase: `lease "lease_nope" ended`},
		// post_result
		{name: "post_result: malformed JSON", method: "POST", path: result, body: `{"lease_id":"`, status: 400, errName: "bad_request", phrase: "unexpected EOF"},
		{name: "post_result: empty body", method: "POST", path: result, status: 400, errName: "bad_request", phrase: "missing required payload"},
		{name: "post_result: wrong type", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","error":true}`, status: 400, errName: "bad_request", phrase: "error"},
		{name: "post_result: unknown field", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","outcome":"ok"}`, status: 400, errName: "bad_request", phrase: `unknown field "outcome"`},
		{name: "post_result: missing lease", method: "POST", path: result, body: `{"result":{"text":"x"}}`, status: 400, errName: "bad_request", phrase: `"lease_id" is missing`},
		{name: "post_result: result and error", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","result":{},"error":"failed"}`, status: 400, errName: "bad_request", phrase: "either result or error, not both"},
		{name: "post_result: error_kind with result", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","result":{},"error_kind":"unknown_city"}`, status: 400, errName: "bad_request", phrase: "error_kind is posted only with error"},
		{name: "post_result: error_recovery with result", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","result":{},"error_recovery":"replan"}`, status: 400, errName: "bad_request", phrase: "error_recovery is posted only with error"},
		{name: "post_result: error_kind alone", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","error_kind":"unknown_city","error_recovery":"replan"}`, status: 400, errName: "bad_request", phrase: "error_kind is posted only with error"},
		{name: "post_result: error_kind not a kind", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","error":"x","error_kind":"Unknown City"}`, status: 400, errName: "bad_request", phrase: "error_kind must match"},
		{name: "post_result: error_kind empty", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","error":"x","error_kind":""}`, status: 400, errName: "bad_request", phrase: "error_kind must match"},
		{name: "post_result: error_kind over 64 bytes", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","error":"x","error_kind":"` + strings.Repeat("k", 65) + `"}`, status: 400, errName: "bad_request", phrase: "error_kind must match"},
		{name: "post_result: error_recovery not a recovery", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","error":"x","error_recovery":"retry"}`, status: 400, errName: "bad_request", phrase: "error_recovery must be one of"},
		{name: "post_result: error_kind not a string", method: "POST", path: result, body: `{"lease_id":"` + a.Lease.LeaseID + `","error":"x","error_kind":7}`, status: 400, errName: "bad_request", phrase: "error_kind"},
		{name: "post_result: unknown call", method: "POST", path: "/v1/calls/nope/result", body: `{"lease_id":"` + a.Lease.LeaseID + `","result":{}}`, status: 404, errName: "not_found", phrase: `no call "nope"`},
		{name: "post_result: unknown lease", method: "POST", path: result, body: `{"lease_id":"lease_nope","result":{}}`, status: 409, errName: "wrong_lease", phrase: `not handed to lease "lease_nope"`},
		{name: "post_result: another lease", method: "POST", path: result, body: `{"lease_id":"` + b.Lease.LeaseID + `","result":{}}`, status: 409, errName: "wrong_lease", phrase: "was not handed to lease " + `"` + b.Lease.LeaseID + `"`},
		{name: "post_result: oversize with Content-Length", method: "POST", path: result, body: `{"lease_id":"x","error":"` + huge + `"}`, status: 413, errName: "payload_too_large", phrase: "over the registry's limit of 4 KiB"},
		{name: "post_result: oversize chunked", method: "POST", path: result, body: `{"lease_id":"x","error":"` + huge + `"}`, chunked: true, status: 413, errName: "payload_too_large", phrase: "over the registry's limit"},
		// list_toolsets, get_toolset, search
		{name: "list_toolsets: unknown tag lists nothing", method: "GET", path: "/v1/toolsets?tag=%00nope", status: 200},
		{name: "list_toolsets: odd If-None-Match lists everything", method: "GET", path: "/v1/toolsets", header: [2]string{"If-None-Match", `W/"x", *`}, status: 200},
		{name: "get_toolset: unknown toolset", method: "GET", path: "/v1/toolsets/nope", status: 404, errName: "unknown_toolset", phrase: `no toolset "nope"`},
		{name: "get_toolset: escaped slash", method: "GET", path: "/v1/toolsets/a%2Fb", status: 400, errName: "bad_request", phrase: `holds '/'`},
		{name: "search: no query", method: "GET", path: "/v1/search", status: 400, errName: "bad_request", phrase: `"q" is missing`},
		{name: "search: limit not a number", method: "GET", path: "/v1/search?q=echo&limit=ten", status: 400, errName: "bad_request", phrase: `invalid value "ten" for "limit"`},
		{name: "search: limit 0", method: "GET", path: "/v1/search?q=echo&limit=0", status: 400, errName: "bad_request", phrase: "limit must be greater or equal than 1"},
		{name: "search: limit over 100", method: "GET", path: "/v1/search?q=echo&limit=101", status: 400, errName: "bad_request", phrase: "limit must be lesser or equal than 100"},
		// resolve_toolset, resolve_registry, changes
		{name: "resolve_toolset: unknown toolset", method: "GET", path: "/v1/toolsets/nope/resolve", status: 404, errName: "unknown_toolset", phrase: `no toolset "nope"`},
		{name: "resolve_toolset: at_revision not a number", method: "GET", path: "/v1/toolsets/echo/resolve?at_revision=x", status: 400, errName: "bad_request", phrase: `invalid value "x" for "at_revision"`},
		{name: "resolve_toolset: pinned another version", method: "GET", path: "/v1/toolsets/echo/resolve?version=9.9", status: 409, errName: "version_mismatch", phrase: `the consumer pins "9.9"`},
		{name: "resolve_toolset: removed after at_revision", method: "GET", path: fmt.Sprintf("/v1/toolsets/gone/resolve?at_revision=%d", gone.Lease.CatalogRevision), status: 410, errName: "toolset_removed", phrase: `toolset "gone" was removed after catalog revision`},
		{name: "resolve_registry: a body on a GET is ignored", method: "GET", path: "/v1/resolve", body: `{"not":"read"`, status: 200},
		{name: "resolve_registry: oversize body", method: "GET", path: "/v1/resolve", body: huge, status: 413, errName: "payload_too_large", phrase: "over the registry's limit"},
		{name: "resolve_registry: a toolset named twice", method: "GET", path: "/v1/resolve?toolset=echo&toolset=raw&toolset=echo", status: 400, errName: "bad_request", phrase: `toolset: "echo" is named twice`},
		{name: "resolve_registry: an empty toolset name", method: "GET", path: "/v1/resolve?toolset=", status: 400, errName: "bad_request", phrase: "toolset: an empty name"},
		{name: "resolve_registry: negative at_revision", method: "GET", path: "/v1/resolve?toolset=echo&at_revision=-1", status: 400, errName: "bad_request", phrase: "at_revision must be greater or equal than 0"},
		{name: "resolve_registry: at_revision not a number", method: "GET", path: "/v1/resolve?at_revision=x", status: 400, errName: "bad_request", phrase: `invalid value "x" for "at_revision"`},
		{name: "resolve_registry: unknown toolset", method: "GET", path: "/v1/resolve?toolset=echo&toolset=nope", status: 404, errName: "unknown_toolset", phrase: `no toolset "nope"`},
		{name: "resolve_registry: removed after at_revision", method: "GET", path: fmt.Sprintf("/v1/resolve?toolset=gone&at_revision=%d", gone.Lease.CatalogRevision), status: 410, errName: "toolset_removed", phrase: `toolset "gone" was removed after catalog revision`},
		{name: "changes: negative after", method: "GET", path: "/v1/catalog/changes?after=-1&wait_ms=0", status: 400, errName: "bad_request", phrase: "after is negative (-1)"},
		{name: "changes: after not a number", method: "GET", path: "/v1/catalog/changes?after=latest", status: 400, errName: "bad_request", phrase: `invalid value "latest" for "after"`},
		{name: "changes: negative wait", method: "GET", path: "/v1/catalog/changes?wait_ms=-1", status: 400, errName: "bad_request", phrase: "wait_ms must be greater or equal than 0"},
		{name: "changes: wait over 2 minutes", method: "GET", path: "/v1/catalog/changes?wait_ms=120001", status: 400, errName: "bad_request", phrase: "wait_ms must be lesser or equal than 120000"},
		// call_resolved_tool
		{name: "call: malformed JSON", method: "POST", path: "/v1/calls", body: `{"toolset":"echo",`, status: 400, errName: "bad_request", phrase: "unexpected EOF"},
		{name: "call: empty body", method: "POST", path: "/v1/calls", status: 400, errName: "bad_request", phrase: "missing required payload"},
		{name: "call: wrong type", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"timeout_ms":1000`, `"timeout_ms":"1000"`, 1), status: 400, errName: "bad_request", phrase: "timeout_ms"},
		{name: "call: unknown field", method: "POST", path: "/v1/calls", body: call(`,"priority":"high"`), status: 400, errName: "bad_request", phrase: `unknown field "priority"`},
		{name: "call: missing fields", method: "POST", path: "/v1/calls", body: `{"toolset":"echo"}`, status: 400, errName: "bad_request", phrase: `"call_id" is missing`},
		{name: "call: null payload", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `{"text":"x"}`, "null", 1), status: 400, errName: "bad_request", phrase: `"payload" is missing`},
		{name: "call: empty call id", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"bad-1"`, `""`, 1), status: 400, errName: "bad_request", phrase: `call id "" is not 1 to 256`},
		{name: "call: call id over 256", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"bad-1"`, `"`+strings.Repeat("i", 257)+`"`, 1), status: 400, errName: "bad_request", phrase: "(257 bytes) is not 1 to 256"},
		{name: "call: timeout 0", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"timeout_ms":1000`, `"timeout_ms":0`, 1), status: 400, errName: "bad_request", phrase: "body.timeout_ms"},
		{name: "call: unknown toolset", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"toolset":"echo"`, `"toolset":"nope"`, 1), status: 404, errName: "unknown_toolset", phrase: `no toolset "nope"`},
		{name: "call: unknown tool", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"tool":"echo"`, `"tool":"shout"`, 1), status: 404, errName: "unknown_tool", phrase: `has no tool "shout"; its tools: add, echo, slow`},
		{name: "call: wrong token", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), ts.Token, "qrt1_wrong", 1), status: 409, errName: "admission_conflict", phrase: "resolve the toolset again"},
		{name: "call: invalid payload", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `{"text":"x"}`, `{"text":7,"extra":1}`, 1), status: 422, errName: "validation_error", phrase: "extra"},
		{name: "call: payload over MaxPayloadBytes", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"x"`, `"`+huge+`"`, 1), status: 422, errName: "validation_error", phrase: "the limit is 4096 bytes"},
		{name: "call: oversize with Content-Length", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"x"`, `"`+hugeCall+`"`, 1), status: 413, errName: "payload_too_large", phrase: "over the registry's limit of 68 KiB"},
		{name: "call: oversize chunked", method: "POST", path: "/v1/calls", body: strings.Replace(call(""), `"x"`, `"`+hugeCall+`"`, 1), chunked: true, status: 413, errName: "payload_too_large", phrase: "over the registry's limit"},
		// get_call
		{name: "get_call: unknown call", method: "GET", path: "/v1/calls/nope", status: 404, errName: "not_found", phrase: `no call "nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { badCheck(t, r.URL, tc) })
	}

	// The server still serves: the call in flight settles and a new call
	// runs.
	if _, err := a.Post(*frame.CallID, `{"text":"x"}`, ""); err != nil {
		t.Fatal(err)
	}
	if ans := <-inFlight; ans.err != nil || ans.out.Outcome != "ok" {
		t.Fatalf("the call in flight: %+v", ans)
	}
	out, err := registrytest.Call(c, "echo", "echo", ts.Token, "after-bad-input", `{"text":"still here"}`, 5*time.Second)
	if err != nil || out.Outcome != "ok" {
		t.Fatalf("a valid call after the bad input: %+v %v", out, err)
	}
}

// A body must be one JSON value: data after it is malformed input, and a
// body over the limit is refused whether or not its JSON value ends
// before the limit.
func TestBadInputTrailingDataIsRefused(t *testing.T) {
	const limit = 4 << 10
	r := registrytest.Start(t, registrytest.Options{MaxBodyBytes: limit})
	good := badRegistration(t, registrytest.Echo("echo"), "r1", "", "")
	for _, tc := range []badCase{
		{name: "garbage after the JSON value", method: "POST", path: "/v1/registrations", body: good + `{"kind":"schema_only"}`, status: 400, errName: "bad_request", phrase: "JSON value"},
		{name: "chunked body over the limit after its JSON value", method: "POST", path: "/v1/registrations", body: good + strings.Repeat(" ", 2*limit), chunked: true, status: 413, errName: "payload_too_large", phrase: "over the registry's limit"},
	} {
		t.Run(tc.name, func(t *testing.T) { badCheck(t, r.URL, tc) })
	}
}

// at_revision is a catalog revision: a negative one is malformed (as
// changes refuses a negative after), not a claim that a toolset that never
// existed was removed.
func TestBadInputNegativeAtRevisionIsRefused(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	registrytest.Register(t, r.Client(t, ""), registrytest.Echo("echo"), "r1", 1, false)
	for _, rev := range []string{"-1", "-9223372036854775808"} {
		badCheck(t, r.URL, badCase{method: "GET", path: "/v1/toolsets/never/resolve?at_revision=" + rev,
			status: 400, errName: registry.ErrBadRequest, phrase: "at_revision"})
	}
}
