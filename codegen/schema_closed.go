package codegen

import "goa.design/goa/v3/http/codegen/openapi"

// Payload schemas are closed: a call naming a property the design does not
// declare — a case variant of a declared one, a look-alike of an injected
// field — fails validation instead of reaching the executor. Result and
// server data schemas describe what a tool returns and stay open.

// closeObjects sets "additionalProperties": false on s and on every object
// schema inside it — properties, array items, anyOf branches, $defs and the
// value schemas of maps — that does not declare additionalProperties
// itself. A map (Goa's MapOf) declares it and keeps it.
func closeObjects(s *openapi.Schema) {
	if s == nil {
		return
	}
	if s.Type == openapi.Object && s.AdditionalProperties == nil {
		s.AdditionalProperties = false
	}
	for _, p := range s.Properties {
		closeObjects(p)
	}
	closeObjects(s.Items)
	for _, a := range s.AnyOf {
		closeObjects(a)
	}
	for _, d := range s.Defs {
		closeObjects(d)
	}
	if ap, ok := s.AdditionalProperties.(*openapi.Schema); ok {
		closeObjects(ap)
	}
}

// closePayload closes the payload schema s (closeObjects), then opens its
// root again when the design says OpenArgs: "additionalProperties": true
// there, nested objects still closed.
func closePayload(s *openapi.Schema, open bool) {
	closeObjects(s)
	if open {
		s.AdditionalProperties = true
	}
}
