// Package strictschema inspects a JSON Schema against the subset that
// OpenAI's Structured Outputs strict mode accepts, which OpenAI-compatible
// servers follow too. It owns that one rule set, for the adapters that
// send a model.StructuredOutput (model/openai, model/compat); it never
// rewrites a schema.
//
// Strict mode constrains decoding to the schema, and the API refuses a
// strict schema outside its subset, so an adapter asks for strict mode
// only when [Check] finds nothing, and otherwise sends the schema as
// given with strict false (the answer is then validated after, as it
// always is). The subset, as the Structured Outputs guide states it:
//
//   - the root is an object schema ("type": "object"), not anyOf (the API
//     requires this whatever strict says: [CheckRoot]);
//   - every object schema has "additionalProperties": false and lists
//     every property in "required" (optional fields are nullable
//     instead);
//   - only these keywords: type, properties, required,
//     additionalProperties, items, anyOf, enum, const, $ref, $defs,
//     definitions, description, title; pattern and format (one of
//     date-time, time, date, duration, email, hostname, ipv4, ipv6,
//     uuid) on strings; minimum, maximum, exclusiveMinimum,
//     exclusiveMaximum and multipleOf on numbers; minItems and maxItems
//     on arrays; $schema at the root;
//   - at most [MaxDepth] levels of object nesting and [MaxProperties]
//     properties in all.
//
// An issue reads like:
//
//	#/properties/tags: keyword "uniqueItems" is outside strict mode
package strictschema
