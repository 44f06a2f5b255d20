package contract

import (
	"encoding/json"
	"strings"

	"github.com/quiver-go/quiver/internal/jsonobj"
)

// A compiled payload refuses properties its declaration does not name,
// unless the declaration says otherwise: a call carrying "ORDER_ID" for
// "order_id", or a look-alike of an injected field, fails validation
// instead of reaching the executor. Only the root is closed: nested
// objects are as declared. Fingerprints hash the declaration as written,
// before this rule (see Fingerprint).

// rootApplicators are the keywords through which subschemas of the root
// can declare properties. "additionalProperties": false at the root would
// ignore those properties and refuse them; "unevaluatedProperties": false
// sees them.
var rootApplicators = []string{"allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "$recursiveRef", "if", "dependentSchemas", "dependencies"}

// closeRoot closes the root of an input schema (its members) when the
// declaration does not say whether it accepts undeclared properties — no
// "additionalProperties", no "unevaluatedProperties": it adds
// "additionalProperties": false, or "unevaluatedProperties": false when
// subschemas of the root may declare properties (allOf, $ref, …). A root
// combining subschemas under a draft older than 2019-09, which has no
// unevaluatedProperties, cannot be closed: that is a problem telling the
// declarer to choose. closed reports whether a member was added.
func closeRoot(root []jsonobj.Member, ps *problems) (out []jsonobj.Member, closed bool) {
	for _, k := range []string{"additionalProperties", "unevaluatedProperties"} {
		if _, ok := jsonobj.Get(root, k); ok {
			return root, false
		}
	}
	var combined []string
	for _, k := range rootApplicators {
		if _, ok := jsonobj.Get(root, k); ok {
			combined = append(combined, k)
		}
	}
	if len(combined) == 0 {
		return jsonobj.Set(root, "additionalProperties", json.RawMessage("false")), true
	}
	if draft, ok := preUnevaluatedDraft(root); ok {
		ps.addf(`input_schema: the root combines subschemas (%s) under "$schema" %q, which has no unevaluatedProperties, so undeclared properties cannot be refused by default: say "additionalProperties" at the root (false refuses properties the root's own "properties" do not name, true accepts any)`,
			strings.Join(combined, ", "), draft)
		return root, false
	}
	return jsonobj.Set(root, "unevaluatedProperties", json.RawMessage("false")), true
}

// preUnevaluatedDraft returns the root's "$schema" when it names a draft
// older than 2019-09 (draft-03 to draft-07), which has no
// unevaluatedProperties.
func preUnevaluatedDraft(root []jsonobj.Member) (string, bool) {
	raw, ok := jsonobj.Get(root, "$schema")
	if !ok {
		return "", false
	}
	var uri string
	if json.Unmarshal(raw, &uri) != nil {
		return "", false
	}
	for _, d := range []string{"draft-03", "draft-04", "draft-06", "draft-07"} {
		if strings.Contains(uri, d) {
			return uri, true
		}
	}
	return "", false
}
