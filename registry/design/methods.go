package design

import (
	. "goa.design/goa/v3/dsl"
)

func providerMethods() {
	Method("register", func() {
		Description("Register a toolset by publishing its full ToolSchemas(), and take a lease. Replicas publishing the same (fingerprint, revision) share one registration and its token; a different (fingerprint, revision) replaces the active one once the old leases drain.")
		Payload(func() {
			keyAttribute()
			Attribute("kind", String, "The contract kind: tool_schemas (the full ToolSchemas(): schemas, search terms, field metadata, labels, confirmation, pagination, server data). schema_only is refused.", func() {
				Enum("tool_schemas", "schema_only")
			})
			Attribute("toolset", Any, "The toolset declaration (contract.ToolsetDeclaration), as generated Toolset() returns it.")
			Attribute("fingerprint", String, "contract.Fingerprint of the declaration.")
			Attribute("revision", String, "A revision issued by the deployment (a build id, a version).")
			Attribute("execution", String, "How the provider runs the tools: service (the dynamic path runs these). Agent-as-tool and planner control tools stay compiled into their consumers and are refused.", func() {
				Enum("service", "agent", "planner_control")
				Default("service")
			})
			Attribute("provider", String, "A name for this provider instance, for logs.")
			Attribute("max_in_flight", Int, "How many calls this instance takes at once.", func() {
				Default(64)
				Minimum(1)
				Maximum(4096)
			})
			Required("kind", "toolset", "fingerprint", "revision")
		})
		Result(Registration)
		Error("unsupported_contract", ErrorResult, "The registration is not a full ToolSchemas() publication, or declares a tool the dynamic path does not run.")
		Error("invalid_declaration", ErrorResult, "The declaration does not compile; the message lists every problem.")
		Error("fingerprint_mismatch", ErrorResult, "The fingerprint is not the declaration's.")
		Error("revision_conflict", ErrorResult, "The revision is registered already with another fingerprint.")
		Error("replacement_pending", ErrorResult, "Another revision of the toolset waits for the active one to drain: retry once it is active.", func() { Temporary() })
		HTTP(func() {
			POST("/registrations")
			Response("replacement_pending", StatusConflict)
			Response(StatusCreated)
			Response("unsupported_contract", StatusUnprocessableEntity)
			Response("invalid_declaration", StatusUnprocessableEntity)
			Response("fingerprint_mismatch", StatusUnprocessableEntity)
			Response("revision_conflict", StatusConflict)
		})
	})

	Method("renew", func() {
		Description("Renew a lease.")
		Payload(func() {
			keyAttribute()
			Attribute("lease_id", String, "The lease.")
			Required("lease_id")
		})
		Result(Lease)
		Error("lease_expired", ErrorResult, "The lease ended (expired or released): register again.")
		HTTP(func() {
			POST("/leases/{lease_id}/renew")
			Response(StatusOK)
			Response("lease_expired", StatusGone)
		})
	})

	Method("drain", func() {
		Description("Stop routing new calls to a lease; calls in hand may still post their results.")
		Payload(func() {
			keyAttribute()
			Attribute("lease_id", String, "The lease.")
			Required("lease_id")
		})
		Result(Lease)
		Error("lease_expired", ErrorResult, "The lease ended already.")
		HTTP(func() {
			POST("/leases/{lease_id}/drain")
			Response(StatusOK)
			Response("lease_expired", StatusGone)
		})
	})

	Method("release", func() {
		Description("End a lease. Calls published to it and not settled settle as outcome_unknown.")
		Payload(func() {
			keyAttribute()
			Attribute("lease_id", String, "The lease.")
			Required("lease_id")
		})
		HTTP(func() {
			DELETE("/leases/{lease_id}")
			Response(StatusNoContent)
		})
	})

	Method("unregister", func() {
		Description("Remove a toolset from the catalog, with every lease on it.")
		Payload(func() {
			keyAttribute()
			Attribute("name", String, "The toolset.")
			Required("name")
		})
		HTTP(func() {
			DELETE("/toolsets/{name}")
			Response(StatusNoContent)
		})
	})

	Method("calls", func() {
		Description("The provider's call stream (server-sent events): each call frame is a call handed to this lease; post its result with post_result.")
		Payload(func() {
			keyAttribute()
			Attribute("lease_id", String, "The lease.")
			Required("lease_id")
		})
		StreamingResult(CallFrame)
		Error("lease_expired", ErrorResult, "The lease ended: register again.")
		HTTP(func() {
			GET("/leases/{lease_id}/calls")
			ServerSentEvents(func() {
				SSEEventType("type")
			})
			Response(StatusOK)
			Response("lease_expired", StatusGone)
		})
	})

	Method("post_result", func() {
		Description("Post the outcome of a call handed to this lease: its result, or its error message with, optionally, the failure's kind (error_kind) and recovery advice (error_recovery), which cross the registry to the consumer unchanged. Post error_kind and error_recovery only to a node whose lease lists the failure_kind feature; an older node refuses them as unknown fields. Display hints and server data are not carried: the consumer renders hints from its own copy of the contract, and server data stays with the provider. Posting again returns the outcome recorded first.")
		Payload(func() {
			keyAttribute()
			Attribute("call_id", String, "The call.")
			Attribute("lease_id", String, "The lease the call was handed to.")
			Attribute("result", Any, "The tool's result, when it succeeded.")
			Attribute("error", String, "The tool's error message, when it failed.")
			errorKindAttribute("Posted only with error; with result it is a bad_request.")
			errorRecoveryAttribute("Posted only with error; with result it is a bad_request.")
			Required("call_id", "lease_id")
		})
		Result(CallRecord)
		Error("wrong_lease", ErrorResult, "The call was not handed to this lease.")
		HTTP(func() {
			POST("/calls/{call_id}/result")
			Response(StatusOK)
			Response("wrong_lease", StatusConflict)
		})
	})
}

func consumerMethods() {
	Method("list_toolsets", func() {
		Description("List the catalog, optionally only toolsets carrying every given tag. With If-None-Match naming the current catalog revision the answer is 304 Not Modified.")
		Payload(func() {
			keyAttribute()
			Attribute("tags", ArrayOf(String), "Keep only toolsets that carry every one of these tags.")
			Attribute("if_none_match", String, "A catalog revision (ETag) the caller holds.")
		})
		Result(func() {
			Attribute("revision", Int64, "The catalog revision.")
			Attribute("etag", String, "The catalog revision as an ETag.")
			Attribute("toolsets", ArrayOf(ToolsetSummary), "The toolsets, sorted by name.")
			Attribute("unchanged", String, "\"true\" when the caller's revision is current (304).")
			Required("revision", "etag")
		})
		HTTP(func() {
			GET("/toolsets")
			Param("tags:tag")
			Header("if_none_match:If-None-Match")
			Response(StatusNotModified, func() {
				Tag("unchanged", "true")
				Header("etag:ETag")
				Body(Empty)
			})
			Response(StatusOK, func() {
				Header("etag:ETag")
				Body(func() {
					Attribute("revision")
					Attribute("toolsets")
				})
			})
		})
	})

	Method("get_toolset", func() {
		Description("One toolset: its summary and its full declaration.")
		Payload(func() {
			keyAttribute()
			Attribute("name", String, "The toolset.")
			Required("name")
		})
		Result(func() {
			Attribute("catalog_revision", Int64, "The catalog revision read.")
			Attribute("summary", ToolsetSummary, "The toolset.")
			Attribute("declaration", Any, "Its declaration.")
			Required("catalog_revision", "summary", "declaration")
		})
		Error("unknown_toolset", ErrorResult, "No toolset of that name is registered.")
		HTTP(func() {
			GET("/toolsets/{name}")
			Response(StatusOK)
			Response("unknown_toolset", StatusNotFound)
		})
	})

	Method("search", func() {
		Description("Search the whole catalog's tools with the discovery core (BM25F with name tiers, weak hits cut).")
		Payload(func() {
			keyAttribute()
			Attribute("q", String, "The query: what you want to do, or a tool's name.", func() { MinLength(1) })
			Attribute("limit", Int, "At most this many hits.", func() {
				Default(10)
				Minimum(1)
				Maximum(100)
			})
			Required("q")
		})
		Result(func() {
			Attribute("revision", Int64, "The catalog revision searched.")
			Attribute("hits", ArrayOf(SearchHit), "The hits, best first.")
			Required("revision", "hits")
		})
		HTTP(func() {
			GET("/search")
			Param("q")
			Param("limit")
			Response(StatusOK)
		})
	})

	Method("resolve_toolset", func() {
		Description("A toolset's definitions and registration token, from one consistent read. version pins the published version (it checks, it does not select an older one); at_revision fails with toolset_removed when the toolset was removed after that catalog revision.")
		Payload(func() {
			keyAttribute()
			Attribute("name", String, "The toolset.")
			Attribute("version", String, "The version the consumer pins.")
			Attribute("at_revision", Int64, "The catalog revision the caller's resolution started from.")
			Required("name")
		})
		Result(func() {
			Attribute("catalog_revision", Int64, "The catalog revision read.")
			Attribute("toolset", ResolvedToolset, "The toolset.")
			Required("catalog_revision", "toolset")
		})
		Error("unknown_toolset", ErrorResult, "No toolset of that name is registered.")
		Error("version_mismatch", ErrorResult, "The registered version is not the pinned one.")
		Error("toolset_removed", ErrorResult, "The toolset was removed after at_revision: resolve again from a fresh listing.")
		HTTP(func() {
			GET("/toolsets/{name}/resolve")
			Param("version")
			Param("at_revision")
			Response(StatusOK)
			Response("unknown_toolset", StatusNotFound)
			Response("version_mismatch", StatusConflict)
			Response("toolset_removed", StatusGone)
		})
	})

	Method("resolve_registry", func() {
		Description("The definitions and tokens of the named toolsets, or of every toolset when none is named (an empty registry is valid), from one consistent read. With If-None-Match naming the current catalog revision the answer is 304 Not Modified, whatever the toolsets named (they resolved at that revision). A named toolset that is not registered fails with unknown_toolset, or toolset_removed when at_revision is given and the change log removed it after that revision.")
		Payload(func() {
			keyAttribute()
			Attribute("toolsets", ArrayOf(String), "Resolve only these toolsets, each named once; none: every toolset.")
			Attribute("at_revision", Int64, "The catalog revision the caller's resolution started from.", func() { Minimum(0) })
			Attribute("if_none_match", String, "A catalog revision (ETag) the caller holds.")
		})
		Result(func() {
			Attribute("catalog_revision", Int64, "The catalog revision read.")
			Attribute("etag", String, "The catalog revision as an ETag.")
			Attribute("toolsets", ArrayOf(ResolvedToolset), "The toolsets, sorted by name.")
			Attribute("unchanged", String, "\"true\" when the caller's revision is current (304).")
			Required("catalog_revision", "etag")
		})
		Error("unknown_toolset", ErrorResult, "A named toolset is not registered.")
		Error("toolset_removed", ErrorResult, "A named toolset was removed after at_revision: resolve again from a fresh listing.")
		HTTP(func() {
			GET("/resolve")
			Param("toolsets:toolset")
			Param("at_revision")
			Header("if_none_match:If-None-Match")
			Response(StatusNotModified, func() {
				Tag("unchanged", "true")
				Header("etag:ETag")
				Body(Empty)
			})
			Response(StatusOK, func() {
				Header("etag:ETag")
				Body(func() {
					Attribute("catalog_revision")
					Attribute("toolsets")
					Required("catalog_revision", "toolsets")
				})
			})
			Response("unknown_toolset", StatusNotFound)
			Response("toolset_removed", StatusGone)
		})
	})

	Method("changes", func() {
		Description("The catalog's change feed (long poll): the changes after a revision, waiting up to wait_ms for one.")
		Payload(func() {
			keyAttribute()
			Attribute("after", Int64, "The last catalog revision the caller saw.", func() { Default(0) })
			Attribute("wait_ms", Int, "How long to wait for a change, in milliseconds.", func() {
				Default(30000)
				Minimum(0)
				Maximum(120000)
			})
		})
		Result(func() {
			Attribute("revision", Int64, "The current catalog revision.")
			Attribute("changes", ArrayOf(Change), "The changes after the caller's revision, oldest first.")
			Attribute("reset", Boolean, "true when changes older than the registry keeps were asked for: list the catalog again.")
			Required("revision", "changes", "reset")
		})
		HTTP(func() {
			GET("/catalog/changes")
			Param("after")
			Param("wait_ms")
			Response(StatusOK)
		})
	})
}

func callMethods() {
	Method("call_resolved_tool", func() {
		Description("Call a resolved tool. The payload is validated, the token checked before the call is handed to a provider, and the call id makes the call idempotent: a retry returns the recorded outcome.")
		Payload(func() {
			keyAttribute()
			Attribute("toolset", String, "The toolset.")
			Attribute("tool", String, "The tool's bare name.")
			Attribute("payload", Any, "The tool's payload, without its injected fields: the registry refuses them here, in any spelling; send their values in injected.")
			Attribute("injected", Any, "The values of the tool's injected fields (its declaration's inject), one string member per field and no other, as the consumer's runtime filled them from its run's labels and the call's meta. Required when the tool declares injected fields, refused when it declares none; the registry checks each value against the field's schema and hands the provider the payload with these fields filled in.", func() {
				Example(map[string]any{"tenant_id": "t-acme"})
			})
			Attribute("token", String, "The registration token from ResolveToolset.")
			Attribute("run_id", String, "The consumer's run.")
			// The id's rule (registry.CallIDRule) is checked by the service,
			// whose error quotes at most 64 bytes of a refused id; Goa's
			// length errors would quote all of it.
			Attribute("call_id", String, "The call's id: unique per call, the same on every retry. 1 to 256 of A-Z a-z 0-9 . _ : -, starting with a letter or digit.")
			Attribute("timeout_ms", Int, "How long to wait for the outcome, in milliseconds.", func() {
				Default(30000)
				Minimum(1)
				Maximum(600000)
			})
			Required("toolset", "tool", "payload", "token", "call_id")
		})
		Result(CallOutcome)
		Error("unknown_toolset", ErrorResult, "No toolset of that name is registered.")
		Error("unknown_tool", ErrorResult, "The toolset has no tool of that name.")
		Error("validation_error", ErrorResult, "The payload does not match the tool's schema; the message lists every violation.")
		Error("admission_conflict", ErrorResult, "The registration the token names was replaced: resolve the toolset again.")
		Error("call_not_admitted", ErrorResult, "The call was not handed to any provider (replaced before publication, or no healthy provider before its deadline). It did not run.")
		Error("outcome_unknown", ErrorResult, "The call was handed to a provider that ended before posting its outcome. It may or may not have run; it is never re-run elsewhere.")
		Error("overloaded", ErrorResult, "The toolset's queue is full: retry with the same call id and token.", func() { Temporary() })
		Error("key_limit", ErrorResult, "The key has as many calls open (queued or running) as the registry allows one key: retry with the same call id once one of them settles.", func() { Temporary() })
		Error("call_id_conflict", ErrorResult, "The call id was used by another call (another tool or payload).")
		Error("result_expired", ErrorResult, "The call ran and settled, but its result was kept shorter than its record and is gone. It is never run again under this id.")
		HTTP(func() {
			POST("/calls")
			Response(StatusOK)
			Response("unknown_toolset", StatusNotFound)
			Response("unknown_tool", StatusNotFound)
			Response("validation_error", StatusUnprocessableEntity)
			Response("admission_conflict", StatusConflict)
			Response("call_not_admitted", StatusConflict)
			Response("outcome_unknown", StatusBadGateway)
			Response("overloaded", StatusTooManyRequests)
			Response("key_limit", StatusTooManyRequests)
			Response("call_id_conflict", StatusConflict)
			Response("result_expired", StatusGone)
		})
	})

	Method("get_call", func() {
		Description("A call's record.")
		Payload(func() {
			keyAttribute()
			Attribute("call_id", String, "The call.")
			Required("call_id")
		})
		Result(CallRecord)
		HTTP(func() {
			GET("/calls/{call_id}")
			Response(StatusOK)
		})
	})
}
