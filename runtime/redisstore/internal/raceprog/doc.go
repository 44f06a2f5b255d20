// Command raceprog is the test program of runtime/redisstore's race
// test: one runtime process on the Redis store, on a scripted model and
// an executor that appends a line to a file for every order it cancels.
//
//	raceprog -redis URL -prefix P -log FILE start
//	raceprog -redis URL -prefix P -log FILE [-barrier] continue RUNID
//
// "start" runs the agent until its run suspends for the confirmation of
// cancelOrder, prints the run id and exits. "continue" lists the
// suspended runs, continues RUNID with its pending item's Approve() and
// prints "completed: <answer>", or "not suspended" when the run was not
// listed or Continue's error wraps runtime.ErrNotSuspended (another
// process continued it); both exit 0, any other error exits 1. With
// -barrier it prints "ready" once it has listed the run and waits for a
// line on its standard input before it continues: the test releases two
// processes at once.
package main
