package design

import (
	. "goa.design/goa/v3/dsl"
)

// keyAttribute adds the API key to a payload.
func keyAttribute() {
	APIKey("api_key", "key", String, "The caller's API key.")
}

var Lease = Type("Lease", func() {
	Description("A provider instance's lease on a registration.")
	Attribute("lease_id", String, "The lease; renew it before it expires.")
	Attribute("toolset", String, "The toolset the lease serves.")
	Attribute("token", String, "The registration token of the revision this provider serves.")
	Attribute("state", String, "active: receives calls; pending: waits for the previous revision's leases to drain; draining: receives no new calls.", func() {
		Enum("active", "pending", "draining")
	})
	Attribute("ttl_ms", Int64, "How long the lease lasts without renewal, in milliseconds.")
	Attribute("expires_at", String, "When the lease ends unless renewed (RFC 3339, registry clock).", func() { Format(FormatDateTime) })
	Required("lease_id", "toolset", "token", "state", "ttl_ms", "expires_at")
})

var Registration = Type("Registration", func() {
	Description("The answer to a registration: the lease and the registration it joined.")
	Extend(Lease)
	Attribute("fingerprint", String, "The registration's fingerprint (contract.Fingerprint).")
	Attribute("revision", String, "The deployment-issued revision.")
	Attribute("catalog_revision", Int64, "The catalog revision after the registration.")
	Required("fingerprint", "revision", "catalog_revision")
})

var CallFrame = Type("CallFrame", func() {
	Description("One frame of a provider's call stream.")
	Attribute("type", String, "call: execute it and post its result; drain: finish the calls in hand, then release; ping: keep-alive.", func() {
		Enum("call", "drain", "ping")
	})
	Attribute("call_id", String, "The call's id (call frames).")
	Attribute("toolset", String, "The toolset (call frames).")
	Attribute("tool", String, "The tool's bare name (call frames).")
	Attribute("payload", Any, "The canonical payload (call frames).")
	Attribute("token", String, "The registration token the call was admitted with (call frames).")
	Attribute("run_id", String, "The consumer's run (call frames).")
	Attribute("deadline", String, "When the consumer stops waiting (RFC 3339).", func() { Format(FormatDateTime) })
	Required("type")
})

var ToolsetSummary = Type("ToolsetSummary", func() {
	Description("A toolset in the catalog.")
	Attribute("name", String, "The toolset's name.")
	Attribute("description", String, "The toolset's description.")
	Attribute("version", String, "The published version, if any.")
	Attribute("tags", ArrayOf(String), "The toolset's tags.")
	Attribute("fingerprint", String, "The active registration's fingerprint.")
	Attribute("revision", String, "The active registration's revision.")
	Attribute("tools", ArrayOf(String), "The tools' bare names, sorted.")
	Attribute("providers", Int, "How many providers hold a live, non-draining lease.")
	Required("name", "fingerprint", "revision", "tools", "providers")
})

var ResolvedToolset = Type("ResolvedToolset", func() {
	Description("A toolset's full contract and the token to call it with.")
	Attribute("name", String, "The toolset's name.")
	Attribute("version", String, "The published version, if any.")
	Attribute("fingerprint", String, "The registration's fingerprint.")
	Attribute("revision", String, "The registration's revision.")
	Attribute("token", String, "The registration token CallResolvedTool expects.")
	Attribute("declaration", Any, "The published ToolSchemas() as a toolset declaration (contract.ToolsetDeclaration).")
	Required("name", "fingerprint", "revision", "token", "declaration")
})

var Change = Type("Change", func() {
	Description("One change of the catalog.")
	Attribute("revision", Int64, "The catalog revision the change produced.")
	Attribute("toolset", String, "The toolset that changed.")
	Attribute("kind", String, "registered: a new toolset; replaced: a new revision became active; removed: unregistered.", func() {
		Enum("registered", "replaced", "removed")
	})
	Required("revision", "toolset", "kind")
})

var SearchHit = Type("SearchHit", func() {
	Description("A tool found by a catalog search.")
	Attribute("ident", String, "The tool's ident, toolset.tool.")
	Attribute("toolset", String, "The toolset.")
	Attribute("tool", String, "The tool's bare name.")
	Attribute("title", String, "The tool's title.")
	Attribute("description", String, "The tool's description.")
	Required("ident", "toolset", "tool", "title")
})

var CallOutcome = Type("CallOutcome", func() {
	Description("A call's recorded outcome.")
	Attribute("call_id", String, "The call's id.")
	Attribute("outcome", String, "ok: the provider returned a result; tool_error: the provider's tool failed (error says why).", func() {
		Enum("ok", "tool_error")
	})
	Attribute("result", Any, "The tool's result (ok).")
	Attribute("error", String, "The tool's error message (tool_error).")
	Required("call_id", "outcome")
})

var CallRecord = Type("CallRecord", func() {
	Description("A call's record as the registry keeps it.")
	Attribute("call_id", String, "The call's id.")
	Attribute("toolset", String, "The toolset.")
	Attribute("tool", String, "The tool's bare name.")
	Attribute("run_id", String, "The consumer's run.")
	Attribute("token", String, "The token the call was admitted with.")
	Attribute("state", String, "accepted: waiting for a provider; published: handed to a provider; settled: has its outcome.", func() {
		Enum("accepted", "published", "settled")
	})
	Attribute("outcome", String, "The outcome once settled: ok, tool_error, call_not_admitted, outcome_unknown.")
	Attribute("lease_id", String, "The provider lease it was published to.")
	Attribute("error", String, "The error message of a settled call that did not succeed.")
	Attribute("result", Any, "The result of an ok call.")
	Attribute("result_expired", Boolean, "true when the call's result and error message were forgotten after the registry's result retention (its outcome remains).")
	Required("call_id", "toolset", "tool", "token", "state")
})
