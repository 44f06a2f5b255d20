// Package design is the Goa design of the tool registry's HTTP+JSON API.
// `goa gen github.com/quiver-go/quiver/registry/design -o registry` (run by
// `go generate ./registry`) writes the service, its server and its client
// under registry/gen.
package design

import (
	. "goa.design/goa/v3/dsl"
)

var _ = API("registry", func() {
	Title("Quiver tool registry")
	Description("Providers publish toolsets; consumers list, search and resolve them and call their tools through the registry, which routes each call to one healthy provider with an admission token.")
	Version("1.0")
	Server("registry", func() {
		Host("localhost", func() { URI("http://127.0.0.1:7420") })
	})
})

// APIKey authenticates every request but the probes. The registry's keys
// file maps a key to a role: provider (with the toolset name globs it may
// publish), consumer or admin.
var APIKeyAuth = APIKeySecurity("api_key", func() {
	Description("An API key from the registry's keys file, sent in the Authorization header (`Bearer <key>` or the bare key).")
})

var _ = Service("registry", func() {
	Description("The tool registry: provider registration and leases, the catalog, and calls routed to providers.")

	Security(APIKeyAuth)

	Error("unauthorized", ErrorResult, "The request carries no API key, or one the registry does not know.")
	Error("forbidden", ErrorResult, "The key's role may not do this (a consumer publishing, a provider publishing outside its globs).")
	Error("bad_request", ErrorResult, "The request is malformed: the message says which field and why.")
	Error("payload_too_large", ErrorResult, "The request body is over the registry's limit.")
	Error("unavailable", ErrorResult, "The registry cannot read or write its store; retry later.")
	Error("not_found", ErrorResult, "No such toolset, tool, lease or call.")

	HTTP(func() {
		Path("/v1")
		Response("unauthorized", StatusUnauthorized)
		Response("forbidden", StatusForbidden)
		Response("bad_request", StatusBadRequest)
		Response("payload_too_large", StatusRequestEntityTooLarge)
		Response("unavailable", StatusServiceUnavailable)
		Response("not_found", StatusNotFound)
	})

	providerMethods()
	consumerMethods()
	callMethods()
})
