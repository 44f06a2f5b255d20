// Package contract turns runtime-declared tools into tool contracts and
// fingerprints declarations.
//
// A [ToolDeclaration] is a tool defined at run time (for example read from a
// registry): schemas as JSON plus metadata supplied explicitly. [Compile]
// validates it and returns an independent [tools.ToolSpec] with validating
// codecs and a search document; [CompileToolset] does the same for a whole
// [ToolsetDeclaration], applying tag inheritance. [Check] reports what
// Compile would, without building the spec, for validating many
// declarations at once (package tools/catalogfile checks every tool of a
// catalog file with it). [Fingerprint] and [FingerprintTool] hash
// declarations for change detection.
//
// Invariants:
//   - Nothing is inferred from field names: a property named "session_id" or
//     "cursor" is injected or paged only when the declaration says so.
//   - A compiled spec shares no memory with its declaration: changing the
//     declaration afterwards does not change the spec.
//   - Injected fields never appear in the model-facing payload schema.
//   - The model-facing payload schema is closed at its root: when the
//     declared root says neither "additionalProperties" nor
//     "unevaluatedProperties", [Compile] adds "additionalProperties": false
//     ("unevaluatedProperties": false when the root combines subschemas),
//     so a payload with an undeclared property fails validation. A root
//     that says either keeps what it says.
//   - Every problem of a declaration is reported in one error.
//   - A fingerprint is "sha256:" and the hex SHA-256 of the RFC 8785
//     canonical JSON of the declaration without its registration time: equal
//     content gives equal fingerprints whatever the key order inside schemas.
//     The declaration is hashed as written: the default closing of the
//     payload root is not part of the hashed form.
package contract
