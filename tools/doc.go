// Package tools owns one tool's contract: who a tool is ([Ident]), what a model
// calls it ([WireNames]), and everything the runtime needs to advertise, admit,
// decode, execute and render it ([ToolSpec], [TypeSpec], codecs, [CallMeta],
// injected fields, bounds, confirmation and hint templates).
//
// It knows nothing about models, planners or engines: generated code,
// contract.Compile (package tools/contract) and the runtime all meet here.
//
// Invariants:
//   - An [Ident] is "<toolset>.<tool>" and splits at its last dot: toolset
//     names may contain dots, tool names may not.
//   - Everything a model reads uses wire names (^[a-zA-Z0-9_-]{1,64}$), which
//     a [WireNames] maps to and from idents injectively; the mapping depends
//     only on the set of idents, never on their order.
//   - A valid [ToolSpec] has a non-empty title, a search document keyed by its
//     ident, and model-facing payload schemas that never mention injected
//     fields.
//   - A [TypeSpec]'s compiled schema is immutable and shared by its clones;
//     every other part of a ToolSpec is copied by Clone, so generated and
//     compiled functions can hand out fresh copies.
//   - Validation errors list every violation, in a deterministic order, with
//     messages a model can act on.
//   - A payload is read through [CanonicalPayload], once: no duplicate keys,
//     no key that matches a declared property only by case or Unicode
//     folding, no injected field from the caller. Every decoder here
//     ([Decode], [JSONCodec.FromJSON], [Unmarshal]) matches keys exactly.
//   - Errors a model reads never echo injected values or run labels.
package tools
