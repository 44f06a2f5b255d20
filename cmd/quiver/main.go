// Command quiver is Quiver's command line: it ranks tools of a catalog for a
// request, evaluates the rankers on a labelled query set, and measures what
// advertising a catalog costs in tokens.
//
// Usage:
//
//	quiver search "<query>" [--catalog FILE] [--limit N] [--json]
//	quiver search eval [--catalog FILE --queries FILE] [--ranker default|baseline] [--compare] [--allow-skips] [--json]
//	quiver catalog tokens [--catalog FILE] [--inline NAMES | --inline-count N] [--json]
//	quiver --version
//
// Without --catalog the commands use the embedded example catalog
// (internal/catalogs/workspace.json), so they work from any directory, and
// every example their --help shows runs as written. Tool names are taken
// bare (openTable) or in full (workspace.openTable) wherever unambiguous.
// search eval names every label that matches no tool and every query it
// skips, and fails unless --allow-skips.
//
// A catalog (--catalog FILE, or --catalog - for stdin) is an MCP tools/list
// result, a JSON array of tools or a saved JSON-RPC tools/list response.
// It is read as the runtime would compile it (package tools/catalogfile):
// an invalid JSON Schema, a tool name a provider would refuse, two names
// differing only in case, control characters or invalid UTF-8 fail with the
// file, line and column; --lenient turns the name problems into warnings
// on stderr. Output names the catalog used: its path, stdin, or the
// embedded one. Catalog and query files over 64 MiB are refused before
// they are read (/dev/zero or an endless pipe fails at once);
// --max-input-size raises the limit.
//
// Exit status: 0 on success, 1 on a failure, 2 on a usage error (an
// unknown command or flag, a missing argument, a bad flag value).
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// A command holds a whole catalog and its index at once: a
		// tighter collection target keeps a large catalog's peak memory
		// near what it holds (docs/benchmarks.md), for a little CPU.
		// GOGC, when set, wins.
		debug.SetGCPercent(50)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
