// Command quiver is Quiver's command line: it ranks tools of a catalog for a
// request, evaluates the rankers on a labelled query set, measures what
// advertising a catalog costs in tokens, runs the tool registry and calls
// the tools registered in it, and benchmarks the registry.
//
// Usage:
//
//	quiver serve [--addr 127.0.0.1:7400] [--data DIR] [--keys FILE] [--stdio] [--expose-all] [--approve TOOL]...
//	quiver search "<query>" [--catalog FILE] [--limit N] [--json]
//	quiver search eval [--catalog FILE --queries FILE] [--ranker default|baseline] [--compare] [--allow-skips] [--json]
//	quiver catalog tokens [--catalog FILE] [--inline NAMES | --inline-count N] [--json]
//	quiver registry serve [--addr 127.0.0.1:7420] [--data DIR] [--keys FILE] [--max-body SIZE] [--lease-ttl D] [--retention D]
//	quiver registry ls [--tag T]... [--json] [--data DIR]
//	quiver registry search "<query>" [--limit N] [--json]
//	quiver registry resolve NAME [--version V] [--json]
//	quiver registry call TOOLSET.TOOL --payload JSON|@FILE [--call-id ID] [--timeout D] [--json]
//	quiver runs ls [--data DIR | --redis URL [--prefix P]] [--session ID] [--agent A] [--status S] [--limit N] [--json]
//	quiver runs show RUN [--data DIR | --redis URL [--prefix P]] [--json]
//	quiver runs tail RUN [--data DIR | --redis URL [--prefix P]] [--after N] [--json]
//	quiver bench registry [--calls N] [--concurrency C] [--data DIR] [--json]
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
// quiver registry serve runs a registry on the embedded bbolt store, in the
// data folder --data DIR ($XDG_DATA_HOME/quiver or ~/.local/share/quiver on
// Linux; the same flag and default serve every command that keeps data).
// Without --keys it serves everyone as admin, so it starts on a loopback
// address only. SIGINT or SIGTERM stops it gracefully; SIGHUP reloads
// --keys. The other registry commands are its clients: --registry URL
// ($QUIVER_REGISTRY_URL, then the registry of the quiver serve running on
// the data folder, found through its serve.json, then
// http://127.0.0.1:7420) and --key-file FILE, $QUIVER_REGISTRY_KEY or --key
// KEY (then that quiver serve's consumer key file); a failure the
// registry reports is printed with its name (validation_error,
// unknown_toolset…) and exits 1. quiver registry call prints the call id
// it generates, so that a retry with --call-id reads the same outcome.
// quiver bench registry measures calls through an in-process registry
// against direct HTTP calls to the same executor, and exits 1 if a call
// was lost or run twice.
//
// quiver runs reads the run log of an application that runs agents: every
// event of every run, from the data folder's runs.db (which one process
// holds at a time) or from Redis, where runs are followed live. ls lists
// runs with their status, show prints one run's events and what it waits
// for, tail prints events as they are recorded until the run ends or
// suspends.
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
		// GOGC, when set, wins. The registry's commands set it back
		// (serverGC).
		debug.SetGCPercent(50)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// serverGC restores Go's default collection target, unless GOGC is set,
// for the commands that serve (quiver registry serve, and quiver bench
// registry, which measures what it serves): a registry holds little at
// once, so main's tighter target would only cost it CPU (about a tenth of
// its calls per second in quiver bench registry).
func serverGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
}
