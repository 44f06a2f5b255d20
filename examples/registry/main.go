// Command registry runs, offline and in one process, a tool registry, the
// warehouse's providers publishing to it, and the front desk's agents
// consuming it (a scripted model plays the model):
//
//   - the clerk, which uses the whole registry with deferred tools, finds a
//     toolset published after it started working at its next planning
//     step;
//   - while a shipment waits for a human's confirmation, the shipping
//     provider is replaced by a new revision: the call keeps the contract
//     it was accepted with, the registry refuses its old admission, and the
//     model reads admission_conflict with the way out, then calls again;
//   - the auditor, which pins the inventory toolset to a version the
//     registry does not publish, fails before asking its model.
//
// It prints what the model read and what the runtime did.
//
//	go run ./examples/registry
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(1)
	}
}
