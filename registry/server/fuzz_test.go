package server_test

// Fuzz tests of the request decoders through the real HTTP handler, and of
// the keys file parser. `go test` runs them on their seeds; run one with
// `go test -run x -fuzz FuzzRegister -fuzztime 20s ./registry/server/`.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry/server"
)

// fuzzServe runs one request through h in the fuzz target's goroutine (a
// panic is a crash) and checks the answer: a 2xx with JSON (or no body),
// or a 4xx with a Goa error body; never a 5xx. The front door's own
// refusals (Host, Origin, Content-Type) are not what it fuzzes: a 403 or a
// 415 fails it.
func fuzzServe(t *testing.T, h http.Handler, method, target string, body []byte) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A loopback Host and a JSON body, as a Go client sends: the front
	// door would refuse anything else before the decoders under test.
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:7420"+target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	status, b := rec.Code, rec.Body.Bytes()
	switch {
	case status >= 500:
		t.Fatalf("%s %s %q: status %d (a server fault): %s", method, target, body, status, b)
	case status == http.StatusForbidden || status == http.StatusUnsupportedMediaType:
		t.Fatalf("%s %s: the front door refused the fuzzed request before its decoders (%d): %s", method, target, status, b)
	case status >= 400:
		if _, err := badDecodeErr(rec.Header(), b); err != nil {
			t.Fatalf("%s %s %q: status %d: %v", method, target, body, status, err)
		}
	case status >= 200 && status < 300:
		if status != http.StatusNoContent && !json.Valid(b) {
			t.Fatalf("%s %s %q: status %d with a body that is not JSON: %q", method, target, body, status, b)
		}
	default:
		t.Fatalf("%s %s %q: status %d", method, target, body, status)
	}
	return status, b
}

func FuzzRegister(f *testing.F) {
	r := registrytest.Start(f, registrytest.Options{MaxBodyBytes: 64 << 10})
	h := r.Service.Handler()
	echo := badRegistration(f, registrytest.Echo("fz"), "r1", "", "")
	changed := registrytest.Echo("fz")
	changed.Version = "2.0"
	invalid := registrytest.Echo("fz.bad")
	invalid.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/nowhere"}}}`)
	invalid.Tools[1].Name = ""
	for _, seed := range []string{
		echo,
		badRegistration(f, registrytest.Echo("fz"), "r2", "", `,"provider":"p1","max_in_flight":4096,"execution":"service"`),
		badRegistration(f, changed, "r1", "", ""),
		badRegistration(f, registrytest.Echo("fz.other"), "r1", "sha256:0000", ""),
		badRegistration(f, invalid, "r1", "sha256:x", ""),
		strings.Replace(echo, "tool_schemas", "schema_only", 1),
		badRegistration(f, registrytest.Echo("fz"), "r1", "", `,"execution":"agent"`),
		badRegistration(f, registrytest.Echo("fz"), "", "", ""),
		strings.Replace(echo, `"name":"fz"`, `"name":"fz","owner":"me"`, 1),
		strings.Replace(echo, `"input_schema":{`, `"input_schema":{"additionalProperties":1e400,`, 1),
		echo + `{}`,
		`{"kind":"tool_schemas","toolset":{"name":"fz","tools":[{"name":"t","title":"T","input_schema":{"type":"object"}}]},"fingerprint":"sha256:x","revision":"r1"}`,
		`{"kind":"tool_schemas","toolset":[],"fingerprint":"sha256:x","revision":"r1","max_in_flight":0}`,
		`{"kind":"tool_schemas","toolset":{},"fingerprint":"sha256:x","revision":"r1","max_in_flight":99999999999999999999}`,
		`{"kind":"tool_schemas","toolset":null,"fingerprint":"","revision":""}`,
		`{"KIND":"tool_schemas"}`,
		`{"kind":`, `{}`, `null`, `[]`, `""`, `0`, ``, "\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		status, b := fuzzServe(t, h, "POST", "/v1/registrations", body)
		if status != http.StatusCreated {
			return
		}
		// The catalog serves an active registration it accepted.
		var reg struct{ Toolset, State string }
		if err := json.Unmarshal(b, &reg); err != nil {
			t.Fatalf("registration %s: %v", b, err)
		}
		if reg.State == "active" {
			if status, b := fuzzServe(t, h, "GET", "/v1/toolsets/"+url.PathEscape(reg.Toolset), nil); status != http.StatusOK {
				t.Fatalf("toolset %q registered active but not served: %d %s", reg.Toolset, status, b)
			}
		}
	})
}

func FuzzCallResolvedTool(f *testing.F) {
	r := registrytest.Start(f, registrytest.Options{})
	h := r.Service.Handler()
	// A registered toolset with no provider (the lease is never
	// connected): an admitted call waits its timeout_ms, then settles
	// call_not_admitted.
	p := registrytest.Register(f, r.Client(f, ""), registrytest.Echo("fz"), "r1", 1, false)
	call := func(id, tool, payload, more string) string {
		return fmt.Sprintf(`{"toolset":"fz","tool":%q,"payload":%s,"token":%q,"call_id":%q,"timeout_ms":1%s}`, tool, payload, p.Lease.Token, id, more)
	}
	for _, seed := range []string{
		call("c1", "echo", `{"text":"hello"}`, ""),
		call("c1", "echo", `{"text":"other payload"}`, ""),
		call("c2", "add", `{"a":9007199254740993,"b":-1}`, `,"run_id":"run-1"`),
		call("c3", "add", `{"a":1.5,"b":"2"}`, ""),
		call("c4", "slow", `{"millis":-1}`, ""),
		call("c5", "echo", `{"text":"`+strings.Repeat("x", 101)+`"}`, ""),
		call("c6", "echo", `{"text":"x","extra":true}`, ""),
		call("c7", "echo", `[1,2,3]`, ""),
		call("c8", "echo", `"text"`, ""),
		call("c9", "shout", `{}`, ""),
		strings.Replace(call("c10", "echo", `{"text":"x"}`, ""), `"toolset":"fz"`, `"toolset":"nope"`, 1),
		strings.Replace(call("c11", "echo", `{"text":"x"}`, ""), p.Lease.Token, "qrt1_stale", 1),
		call("", "echo", `{}`, ""),
		call(strings.Repeat("i", 257), "echo", `{}`, ""),
		call("c12", "echo", `{"text":"x"}`, `,"priority":1`),
		call("c13", "echo", `{"text":"x"}`, "") + `{}`,
		call("c14", "echo", `{"text":"x"}`, `,"timeout_ms":0`),
		call("c15", "echo", `{"text":"\ud800"}`, ""),
		call("c16", "echo", `{"text":"x","text":"y"}`, ""),
		`{"toolset":"fz","tool":"echo","payload":null,"token":"t","call_id":"c","timeout_ms":1}`,
		`{"toolset":"fz","timeout_ms":1}`,
		`{"toolset":`, `{}`, `null`, `[]`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// A call that gets through waits its timeout: keep the fuzzer off
		// long ones (and the 30s default), decoding as the server does.
		var probe struct {
			Toolset, Tool, Token *string
			CallID               *string `json:"call_id"`
			Payload              any
			TimeoutMs            *int `json:"timeout_ms"`
		}
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&probe); err == nil &&
			probe.Toolset != nil && probe.Tool != nil && probe.Token != nil && probe.CallID != nil && probe.Payload != nil &&
			(probe.TimeoutMs == nil || *probe.TimeoutMs > 50) {
			t.Skip("the call would wait for its timeout")
		}
		fuzzServe(t, h, "POST", "/v1/calls", body)
	})
}

func FuzzPostResult(f *testing.F) {
	r := registrytest.Start(f, registrytest.Options{LeaseTTL: time.Minute})
	h := r.Service.Handler()
	c := r.Client(f, "")
	p := registrytest.Register(f, c, registrytest.Echo("fz"), "r1", 4, true)
	go func() {
		_, _ = registrytest.Call(c, "fz", "echo", p.Lease.Token, "fz-call", `{"text":"x"}`, time.Minute)
	}()
	frame := <-p.Frames
	lease := p.Lease.LeaseID
	for _, seed := range []struct{ id, body string }{
		{*frame.CallID, `{"lease_id":"` + lease + `","result":{"text":"x"}}`},
		{*frame.CallID, `{"lease_id":"` + lease + `","error":"the tool failed"}`},
		{*frame.CallID, `{"lease_id":"` + lease + `","result":{"text":"x"},"error":"both"}`},
		{*frame.CallID, `{"lease_id":"` + lease + `","result":null}`},
		{*frame.CallID, `{"lease_id":"` + lease + `","result":9007199254740993e-400}`},
		{*frame.CallID, `{"lease_id":"` + lease + `","result":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`},
		{*frame.CallID, `{"lease_id":"lease_gone","result":{}}`},
		{*frame.CallID, `{"lease_id":"` + lease + `","outcome":"ok"}`},
		{*frame.CallID, `{"lease_id":"` + lease + `","error":7}`},
		{*frame.CallID, `{"lease_id":"` + lease + `"}{}`},
		{"nope", `{"lease_id":"` + lease + `","result":{}}`},
		{"a/b?c#d%", `{"lease_id":"x"}`},
		{"\x00\xff", `{"lease_id":"x"}`},
		{*frame.CallID, `{"result":{}}`},
		{*frame.CallID, `{"lease_id":`},
		{*frame.CallID, `null`},
		{*frame.CallID, ``},
	} {
		f.Add(seed.id, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, id string, body []byte) {
		if id == "" {
			t.Skip("no call id: no route")
		}
		fuzzServe(t, h, "POST", "/v1/calls/"+url.PathEscape(id)+"/result", body)
	})
}

func FuzzParseKeys(f *testing.F) {
	for _, seed := range []string{
		`{"keys":[{"name":"p","key":"provider-key-0123456789","role":"provider","toolsets":["echo*","records.?"]},
			{"name":"c","key":"consumer-key-0123456789","role":"consumer"},
			{"name":"a","sha256":"` + hexDigest("admin-key-0123456789abc") + `","role":"admin"}]}`,
		`{"keys":[{"name":"p","key":"provider-key-0123456789","role":"provider","toolsets":["echo["]}]}`,
		`{"keys":[{"name":"","key":"short","sha256":"zz","role":"root","toolsets":[""]}]}`,
		`{"keys":[{"name":"x","key":"0123456789abcdef","role":"admin"},{"name":"x","key":"0123456789abcdef","role":"admin"}]}`,
		`{"keys":[{"name":"h","sha256":"` + hexDigest("") + `","role":"admin"}]}`,
		`{"keys":[],"other":1}`, `{"keys":null}`, `{"Keys":[{"NAME":"n","KEY":"0123456789abcdefg","ROLE":"admin"}]}`,
		`{"keys":[{}]}`, `{`, `null`, `[]`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := server.ParseKeys(data)
		if err != nil {
			if k != nil || err.Error() == "" {
				t.Fatalf("ParseKeys error %q with keys %v", err, k)
			}
			return
		}
		if !k.Configured() {
			t.Fatalf("ParseKeys accepted %q with no key", data)
		}
		if p, ok := k.Lookup(""); ok {
			t.Fatalf("the empty key authenticates as %+v", p)
		}
		// Every listed secret authenticates as its entry.
		var doc struct{ Keys []server.Key }
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
			t.Fatalf("ParseKeys accepted %q, which does not decode: %v", data, err)
		}
		for _, e := range doc.Keys {
			if e.Key == "" {
				continue
			}
			p, ok := k.Lookup(e.Key)
			if !ok || p.Name != e.Name || p.Role != e.Role {
				t.Fatalf("key %q of entry %q: %+v %v", e.Key, e.Name, p, ok)
			}
		}
	})
}
