package design

import (
	. "goa.design/goa/v3/dsl"
)

// keyAttribute adds the API key to a payload.
func keyAttribute() {
	APIKey("api_key", "key", String, "The caller's API key.")
}

// featureFailureKind is the wire feature of a node that takes a failure's
// kind and recovery in post_result and returns them in call records and
// outcomes (registry.FeatureFailureKind names it for Go callers).
const featureFailureKind = "failure_kind"

// errorKindAttribute adds a failed call's kind; more says when it is there.
func errorKindAttribute(more string) {
	Attribute("error_kind", String, "The failure's kind, e.g. tool_error, invalid_payload, tool_unavailable, or a kind the toolset defines: what the provider's executor said its failure was, carried to the consumer unchanged (absent: the consumer reads tool_error). "+more, func() {
		Pattern("^[a-z][a-z0-9_]{0,63}$")
	})
}

// errorRecoveryAttribute adds what a failed call asks of the model; more
// says when it is there.
func errorRecoveryAttribute(more string) {
	Attribute("error_recovery", String, "What the failure asks of the model: correct_call (fix the arguments and call again), replan (plan again without this tool), finish (stop and answer). Absent: the consumer decides. "+more, func() {
		Enum("correct_call", "replan", "finish")
	})
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
	Attribute("features", ArrayOf(String), "The wire features the node that answered accepts, beyond the API's first version: "+featureFailureKind+" (post_result takes error_kind and error_recovery). A provider sends a feature's fields only when its lease lists the feature; absent (an older node): none. A name the provider does not know is ignored.")
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
	Attribute("payload", Any, "The canonical payload, with the injected fields the consumer sent filled in (call frames).")
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
	Description("A call's recorded outcome. What crosses the registry from the provider: the result, or the error message with the failure's kind and recovery. Not carried: display hints (the consumer renders them from its own copy of the contract) and server data (it stays with the provider).")
	Attribute("call_id", String, "The call's id.")
	Attribute("outcome", String, "ok: the provider returned a result; tool_error: the provider's tool failed (error says why).", func() {
		Enum("ok", "tool_error")
	})
	Attribute("result", Any, "The tool's result (ok).")
	Attribute("error", String, "The tool's error message (tool_error).")
	errorKindAttribute("Only with tool_error, when the provider posted one.")
	errorRecoveryAttribute("Only with tool_error, when the provider posted one.")
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
	errorKindAttribute("Only with outcome tool_error, when the provider posted one; kept after the result retention, like the outcome.")
	errorRecoveryAttribute("Only with outcome tool_error, when the provider posted one; kept after the result retention, like the outcome.")
	Attribute("result", Any, "The result of an ok call.")
	Attribute("result_expired", Boolean, "true when the call's result and error message were forgotten after the registry's result retention (its outcome, error_kind and error_recovery remain).")
	Required("call_id", "toolset", "tool", "token", "state")
})
