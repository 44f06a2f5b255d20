// Package portable gives any model.Client tool search: the agent's deferred
// tools stay out of the request and a search_tools(query) function, which
// this package answers itself, makes the best matches callable.
//
// It follows the field lessons of seed 004: matches join the active set
// inside the search execution, before the next request is prepared; the
// searches our code answers are capped per turn (default 3), and the next
// one is answered with {"error":"search-budget-exhausted","budgetCap":3};
// every discovery is recorded in message metadata (model.DiscoveryMetaKey),
// so the runtime admits the discovered tools and a later turn still has
// them while the record stays in the transcript.
//
// Wrap any client to test discovery against the cheapest model a team
// ships; model/compat uses it for OpenAI-compatible servers. The wrapper
// answers only requests in portable mode (model.SearchPortable): an agent
// opts in with both, the wrapper and the mode (ExampleWrap: a deferred
// tool refused, searched for, then called). Client.SupportsSearch
// (model.SearchCapable) accepts portable mode and forwards native mode to
// the wrapped client, so the runtime refuses, before any request, an agent
// whose deferred tools nothing would search. WithDiscovery takes the
// ranking settings (discovery.Settings), through an option of the same
// name on every adapter that searches; values out of range are reported by
// SupportsSearch and by every portable request.
//
// Client.Stream streams every round from the wrapped client's Stream:
// text, argument deltas, calls and usage pass through as they arrive, the
// search tool's own deltas and calls never do, and each search answered
// between two rounds is one model.ChunkSearch (its query and the tools it
// found), sent before the next round's request, which already carries the
// found tools. The final chunk holds the response Complete would return.
//
// With SearchSettings.CallTool the tools array never changes within a
// run: inline tools, the search tool and model.CallToolName. A search
// answers with the found tools' definitions, and a call_tool(name,
// arguments) call reaches the planner as an ordinary call of the named
// tool; unreadable ones are answered here, a bounded number of times.
//
// # Migrating from WithSearchLimit and WithMinRelativeScore
//
// The two options became fields of discovery.Settings, given once with
// WithDiscovery:
//
//	WithSearchLimit(n)         → WithDiscovery(discovery.Settings{Limit: n})
//	WithMinRelativeScore(f)    → WithDiscovery(discovery.Settings{MinRelativeScore: f})
//	WithMinRelativeScore(0)    → WithDiscovery(discovery.Settings{MinRelativeScore: discovery.NoScoreCut})
//	both                       → one WithDiscovery with both fields
//
// A zero field now means the default, so a min relative score of 0 (no
// weak-hit cut) is written discovery.NoScoreCut.
package portable
