// Command shop runs, offline and in one process, two agents whose tools
// are Goa service methods, from the Goa design in design/ and the packages
// goa gen generated from it (gen/):
//
//   - the clerk's place tool is bound to method Place (BindTo): the
//     generated adapters executor converts the tool's nested payload (an
//     order with lines, an address, lines by article) to the method's,
//     calls the shop service, converts its result back and projects the
//     result's nested summary as server data;
//   - the desk reads receipts through the clerk's export, whose receipt
//     tool forwards to method GetReceipt (Passthrough): registered with its
//     adapters executor, its calls run the method — no child run, no
//     model request of the clerk's.
//
// Each agent plays a scripted model (model/scripted). It prints what the
// models, the service and the executors saw.
//
//	go run ./examples/shop
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "shop:", err)
		os.Exit(1)
	}
}
