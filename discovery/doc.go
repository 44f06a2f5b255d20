// Package discovery answers every tool search our code executes — the
// portable search_tools function, OpenAI's client-executed tool_search,
// Anthropic's client-side search tool, the search_tools tool of the MCP
// server (package mcp) and the registry's catalog search (package
// registry/server, through [Engine.Rank]) — so that one query on one catalog
// finds the same tools whichever provider the model runs on or whoever
// asks. Adapters and servers only render its answers in their shapes.
//
// It owns:
//   - the index of a catalog's deferred tools, cached by a fingerprint of
//     the catalog (of what [Fingerprint] hashes) and rebuilt only when the
//     catalog changes;
//   - the per-turn search budget ([model.SearchSettings.Cap]);
//   - ranking with the weak-hit cut: scored hits below a fraction of the
//     best one are not discovered (name-tier hits always are);
//   - the answers a model reads: results, no match (naming the tools it can
//     call without searching), budget exhausted (seed 004's
//     {"error":"search-budget-exhausted","budgetCap":N}) and invalid query;
//   - the discovery record ([model.Discovery]) of an invocation;
//   - [ErrSearchLoop], for a model that keeps searching past its budget;
//   - the search settings ([Settings]: the limit of tools per search and
//     the weak-hit cut, the zero value being the defaults) that every
//     adapter takes through one option of the same name (WithDiscovery)
//     and passes to [New], which validates them.
//
// Invariants:
//   - A search returns only tools not discovered yet — except in call-tool
//     mode (model.SearchSettings.CallTool), where found tools are never
//     listed and a search answers them again when they match, so that a
//     model whose history lost an answer can read the schema again; a tool
//     discovered once stays discovered for the rest of the conversation.
//   - The budget counts searches our code answered in the current turn,
//     earlier invocations included; an invalid query costs nothing.
//   - Answers name tools by wire name and never echo more than the query.
//
// # Migrating from WithSearchLimit and WithMinRelativeScore
//
// The options WithSearchLimit and WithMinRelativeScore, of this package
// and of model/portable, model/compat, model/anthropic and model/openai,
// became the fields of one [Settings] value, given to [New] here and to each
// adapter's WithDiscovery:
//
//	New(WithSearchLimit(n))          → New(Settings{Limit: n})
//	New(WithMinRelativeScore(f))     → New(Settings{MinRelativeScore: f})
//	New(WithMinRelativeScore(0))     → New(Settings{MinRelativeScore: NoScoreCut})
//	x.WithSearchLimit(n)             → x.WithDiscovery(discovery.Settings{Limit: n})
//	x.WithMinRelativeScore(f)        → x.WithDiscovery(discovery.Settings{MinRelativeScore: f})
//
// where x is portable, compat, anthropic or openai.
//
// Both settings go in one value (a second WithDiscovery replaces the
// first). A zero field means the default, so a zero limit is no longer an
// error, and a min relative score of 0 (no weak-hit cut) is written
// [NoScoreCut].
package discovery
