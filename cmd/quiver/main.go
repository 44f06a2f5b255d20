// Command quiver is Quiver's command line: it ranks tools of a catalog for a
// request, evaluates the rankers on a labelled query set, and measures what
// advertising a catalog costs in tokens.
//
// Usage:
//
//	quiver search "<query>" [--catalog FILE] [--limit N] [--json]
//	quiver search eval [--catalog FILE --queries FILE] [--ranker default|baseline] [--compare] [--json]
//	quiver catalog tokens [--catalog FILE] [--inline NAMES | --inline-count N] [--json]
//
// Without --catalog the commands use the embedded example catalog
// (examples/catalogs/workspace.json), so they work from any directory.
// Exit status: 0 on success, 1 on an error, 2 on a usage error.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
