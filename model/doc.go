// Package model holds the provider-neutral vocabulary every model adapter
// speaks: requests (system prompt, messages, tool definitions, search and
// cache settings), responses (assistant messages to append, tool calls,
// usage, stop reason, the cache checkpoints the provider could not place)
// and the [Client] interface. Sub-packages adapt it to
// providers (model/scripted plays a fixed script for tests and offline
// examples).
//
// A client declares how it discovers deferred tools by implementing
// [SearchCapable]; [CheckSearch] is what the runtime asks before any request,
// and [ErrToolSearchUnsupported], wrapped with the fix that applies, is the
// answer of a client that cannot search the way an agent asks. Every
// adapter resolves a request's model id with [ResolveModel] ([ErrNoModel]).
//
// Invariants: messages carry provider metadata ([Message.Meta]) that storage
// and history compaction preserve verbatim; a tool definition's Name is the
// wire name the model reads, never an ident; every type here is plain data
// that round-trips through JSON, so runs can be checkpointed and replayed.
package model
