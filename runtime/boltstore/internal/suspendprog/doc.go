// Command suspendprog is the test program of runtime/boltstore's durable
// test: it owns nothing else. Mode start runs an agent on the store in a
// data folder until the run suspends at a confirmation, prints the run id
// and waits to be killed; mode approve, in a later process, lists the
// suspended runs, approves the waiting one and prints the final answer.
//
//	suspendprog -data DIR -log FILE start
//	suspendprog -data DIR -log FILE [-run ID] approve
//
// Exit status: 0 on success, 3 when the run to continue is not suspended
// (runtime.ErrNotSuspended), 1 otherwise.
package main
