// Command discovery runs a data-workspace agent offline whose export and
// introspection tools are deferred: the scripted model first calls a tool it
// has not discovered (the runtime refuses it and names the recovery call),
// then searches with the portable search_tools function, and calls the tool
// the search made callable. It prints the transcript as the model saw it.
//
//	go run ./examples/discovery
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "discovery:", err)
		os.Exit(1)
	}
}
