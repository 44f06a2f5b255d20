// Package search is Quiver's tool search engine, used through the discovery
// core (package discovery) that the model adapters, the MCP server (package
// mcp) and the registry server (package registry/server) answer searches
// with.
//
// It owns the analyzer that turns tool text and queries into terms, the
// [Document] that records one tool's per-field term counts (computed at
// generation time for compiled tools and by contract.Compile for runtime
// tools), and the [Index] that ranks documents for a query with BM25F.
//
// Invariants:
//   - A query equal to a tool's name (its key, or any alias such as the wire
//     name or bare tool name) ranks that tool first; then case-folded name
//     matches; then separator-folded ones (startExport ~ start_export); then,
//     when none of those matched, names a few edits from the query
//     ([TierFuzzyName]); then scored hits, where a misspelled word is read
//     as the vocabulary terms one edit away, at a lower weight.
//   - Results are deterministic: tier, then score (descending), then name.
//   - An [Index] accepts concurrent readers while one writer adds, replaces or
//     removes documents; no write requires a rebuild.
//   - Documents are validated when they enter an Index and must have been
//     built by the same analyzer version the Index uses.
//
// [Index.Explain] says why each hit ranks where it does; [Index.Suggest]
// names the tools a query almost named, for answers that found nothing.
//
// [Baseline] is a plain Okapi BM25 ranker, defined exactly, kept to measure the
// default ranker against.
package search
