// Command runlogprog is the other process of the run log's cross-process
// tests (runlogprog_test.go): "hang" starts a run of the orders desk on a
// durable store, approves its call and hangs in the call's executor until
// the test kills it; "follow" follows a run of the store's run log and
// prints each event it reads as one JSON record per line, leaving after
// -max events as a follower that loses its connection would.
//
// Usage:
//
//	runlogprog (-bolt FILE | -redis URL -prefix P) -lease D -log FILE hang
//	runlogprog -redis URL -prefix P -run ID [-after N] [-max K] follow
package main
