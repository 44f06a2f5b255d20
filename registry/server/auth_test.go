package server_test

// API keys: every endpoint but the probes needs a known key, and each
// role may do only its own part.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/server"
)

const (
	authProviderKey = "provider-key-0123456789"
	authConsumerKey = "consumer-key-0123456789"
	authAdminKey    = "admin-key-0123456789abc"
)

// authRegistry is a registry with a provider key limited to "echo*", a
// consumer key and an admin key. The admin key serves toolset "other"
// with a connected RawProvider and the provider key serves "echo"; call
// "other-call" on "other" is settled with result {"text":"s3cret"}.
type authRegistry struct {
	r     *registrytest.Registry
	other *registrytest.RawProvider
	echo  *registrytest.RawProvider
	token string // echo's token
	// otherCall is the registry id of "other-call", which its provider
	// was handed and posts by (the id in the consumer key's scope).
	otherCall string
}

func authStart(t *testing.T) *authRegistry {
	t.Helper()
	keys, err := server.ParseKeys([]byte(fmt.Sprintf(`{"keys":[
		{"name":"prov","key":%q,"role":"provider","toolsets":["echo*"]},
		{"name":"cons","key":%q,"role":"consumer"},
		{"name":"root","key":%q,"role":"admin"}]}`, authProviderKey, authConsumerKey, authAdminKey)))
	if err != nil {
		t.Fatal(err)
	}
	r := registrytest.Start(t, registrytest.Options{Keys: keys, LeaseTTL: time.Minute})
	admin, prov, cons := r.Client(t, authAdminKey), r.Client(t, authProviderKey), r.Client(t, authConsumerKey)
	a := &authRegistry{r: r}
	a.other = registrytest.Register(t, admin, registrytest.Echo("other"), "r1", 4, true)
	a.echo = registrytest.Register(t, prov, registrytest.Echo("echo"), "r1", 4, false)
	registrytest.Serve(t, prov, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, registrytest.NewCounter())
	a.token = registrytest.WaitProviders(t, cons, "echo", 2).Token
	done := async(cons, "other", "echo", a.other.Lease.Token, "other-call", `{"text":"s3cret"}`, 10*time.Second)
	f := <-a.other.Frames
	a.otherCall = *f.CallID
	if _, err := a.other.Post(*f.CallID, `{"text":"s3cret"}`, ""); err != nil {
		t.Fatal(err)
	}
	if ans := <-done; ans.err != nil {
		t.Fatal(ans.err)
	}
	return a
}

// authEndpoints is one well-formed request to every endpoint, with no
// key: each test sets its own.
func (a *authRegistry) authEndpoints(t *testing.T) []badCase {
	lease := a.other.Lease.LeaseID
	return []badCase{
		{name: "register", method: "POST", path: "/v1/registrations", body: badRegistration(t, registrytest.Echo("echo-new"), "r1", "", "")},
		{name: "renew", method: "POST", path: "/v1/leases/" + lease + "/renew"},
		{name: "drain", method: "POST", path: "/v1/leases/" + lease + "/drain"},
		{name: "release", method: "DELETE", path: "/v1/leases/" + lease},
		{name: "unregister", method: "DELETE", path: "/v1/toolsets/other"},
		{name: "calls", method: "GET", path: "/v1/leases/" + lease + "/calls"},
		{name: "post_result", method: "POST", path: "/v1/calls/" + a.otherCall + "/result", body: `{"lease_id":"` + lease + `","result":{"text":"forged"}}`},
		{name: "list_toolsets", method: "GET", path: "/v1/toolsets"},
		{name: "get_toolset", method: "GET", path: "/v1/toolsets/other"},
		{name: "search", method: "GET", path: "/v1/search?q=echo"},
		{name: "resolve_toolset", method: "GET", path: "/v1/toolsets/other/resolve"},
		{name: "resolve_registry", method: "GET", path: "/v1/resolve"},
		{name: "changes", method: "GET", path: "/v1/catalog/changes?wait_ms=0"},
		{name: "call_resolved_tool", method: "POST", path: "/v1/calls", body: `{"toolset":"echo","tool":"echo","payload":{"text":"x"},"token":"` + a.token + `","call_id":"auth-call","timeout_ms":1000}`},
		{name: "get_call", method: "GET", path: "/v1/calls/other-call"},
	}
}

func TestAuthUnknownOrMissingKeyIsUnauthorized(t *testing.T) {
	a := authStart(t)
	for _, k := range []struct{ what, auth, phrase string }{
		{"no key", "", "carries no API key"},
		{"unknown bearer key", "Bearer not-a-key-0123456789", "not in the registry's keys file"},
		{"unknown bare key", "not-a-key-0123456789", "not in the registry's keys file"},
		{"a key's digest", "Bearer " + strings.Repeat("0", 64), "not in the registry's keys file"},
	} {
		for _, tc := range a.authEndpoints(t) {
			tc.auth, tc.status, tc.errName, tc.phrase = k.auth, 401, registry.ErrUnauthorized, k.phrase
			t.Run(k.what+"/"+tc.name, func(t *testing.T) { badCheck(t, a.r.URL, tc) })
		}
	}
}

func TestAuthBearerAndBareKeysAreAccepted(t *testing.T) {
	a := authStart(t)
	for _, auth := range []string{"Bearer " + authConsumerKey, authConsumerKey} {
		badCheck(t, a.r.URL, badCase{method: "GET", path: "/v1/toolsets", auth: auth, status: 200})
		badCheck(t, a.r.URL, badCase{method: "GET", path: "/v1/calls/other-call", auth: auth, status: 200})
	}
	badCheck(t, a.r.URL, badCase{method: "POST", path: "/v1/leases/" + a.echo.Lease.LeaseID + "/renew", auth: authProviderKey, status: 200})
	badCheck(t, a.r.URL, badCase{method: "POST", path: "/v1/leases/" + a.echo.Lease.LeaseID + "/renew", auth: "Bearer " + authProviderKey, status: 200})
}

func TestAuthRolesAreEnforced(t *testing.T) {
	a := authStart(t)
	const (
		consume = "reading the catalog and calling tools needs a consumer or admin key"
		publish = "publishing toolsets needs a provider or admin key"
		globs   = `provider key "prov" may publish only toolsets matching ["echo*"], not "other"`
	)
	consumerMay := map[string]bool{"list_toolsets": true, "get_toolset": true, "search": true, "resolve_toolset": true,
		"resolve_registry": true, "changes": true, "call_resolved_tool": true, "get_call": true}
	for _, tc := range a.authEndpoints(t) {
		if consumerMay[tc.name] {
			continue // below, with the admin
		}
		tc.auth, tc.status, tc.errName, tc.phrase = "Bearer "+authConsumerKey, 403, registry.ErrForbidden, publish
		t.Run("consumer/"+tc.name, func(t *testing.T) { badCheck(t, a.r.URL, tc) })
	}
	for _, tc := range a.authEndpoints(t) {
		tc.auth = "Bearer " + authProviderKey
		switch {
		case consumerMay[tc.name]:
			tc.status, tc.errName, tc.phrase = 403, registry.ErrForbidden, consume
		case tc.name == "register":
			tc.body = badRegistration(t, registrytest.Echo("other"), "r2", "", "")
			tc.status, tc.errName, tc.phrase = 403, registry.ErrForbidden, globs
		default: // the lease and the toolset are "other"'s
			tc.status, tc.errName, tc.phrase = 403, registry.ErrForbidden, globs
		}
		t.Run("provider/"+tc.name, func(t *testing.T) { badCheck(t, a.r.URL, tc) })
	}
	// A provider publishes and serves what its globs match.
	t.Run("provider/own toolset", func(t *testing.T) {
		badCheck(t, a.r.URL, badCase{method: "POST", path: "/v1/registrations", auth: authProviderKey,
			body: badRegistration(t, registrytest.Echo("echo.sub"), "r1", "", ""), status: 201})
		badCheck(t, a.r.URL, badCase{method: "POST", path: "/v1/leases/" + a.echo.Lease.LeaseID + "/drain", auth: authProviderKey, status: 200})
		badCheck(t, a.r.URL, badCase{method: "DELETE", path: "/v1/leases/" + a.echo.Lease.LeaseID, auth: authProviderKey, status: 204})
		badCheck(t, a.r.URL, badCase{method: "DELETE", path: "/v1/toolsets/echo.sub", auth: authProviderKey, status: 204})
	})
	// Consumers and admins read and call; admins do everything, in an
	// order that leaves each request valid.
	for _, key := range []string{authConsumerKey, authAdminKey} {
		for _, tc := range a.authEndpoints(t) {
			if !consumerMay[tc.name] {
				continue
			}
			tc.auth, tc.status = "Bearer "+key, 200
			tc.body = strings.Replace(tc.body, "auth-call", "auth-call-"+key, 1)
			t.Run(key+"/"+tc.name, func(t *testing.T) { badCheck(t, a.r.URL, tc) })
		}
	}
	admin := map[string]int{"register": 201, "renew": 200, "drain": 200, "post_result": 200, "release": 204, "unregister": 204}
	for _, tc := range a.authEndpoints(t) {
		status, ok := admin[tc.name]
		if !ok {
			continue
		}
		tc.auth, tc.status = "Bearer "+authAdminKey, status
		t.Run("admin/"+tc.name, func(t *testing.T) { badCheck(t, a.r.URL, tc) })
	}
	t.Run("admin/calls", func(t *testing.T) {
		p := registrytest.Register(t, a.r.Client(t, authAdminKey), registrytest.Echo("admin-set"), "r1", 1, false)
		p.Connect(t) // fails the test unless the stream opens
	})
}

// A provider key outside the call's toolset, or a consumer key, may not
// post (or read) a call's outcome by naming a lease the registry no
// longer holds.
func TestAuthPostResultChecksTheCallsToolset(t *testing.T) {
	a := authStart(t)
	for _, auth := range []string{"Bearer " + authProviderKey, "Bearer " + authConsumerKey} {
		t.Run(auth, func(t *testing.T) {
			c := badCase{method: "POST", path: "/v1/calls/" + a.otherCall + "/result", auth: auth,
				body: `{"lease_id":"lease_gone","result":{"text":"forged"}}`, status: 403, errName: registry.ErrForbidden}
			status, _, b := badDo(t, a.r.URL, c)
			if status != 403 {
				t.Errorf("status %d, want 403 forbidden; the answer discloses call other-call of toolset %q: %s", status, "other", b)
			}
		})
	}
}

func TestAuthProbesNeedNoKey(t *testing.T) {
	a := authStart(t)
	for _, path := range []string{"/healthz", "/readyz", "/openapi.json"} {
		badCheck(t, a.r.URL, badCase{method: "GET", path: path, status: 200})
	}
}
