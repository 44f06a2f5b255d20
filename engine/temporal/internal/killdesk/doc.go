// Package killdesk is the agents, tools and model the worker-kill tests
// run in worker subprocesses (internal/workerproc) and register in the test
// process: the same registrations everywhere, as a task queue needs. Its
// model decides from the transcript alone, so that a planning step retried
// on another process answers as the first would have; its executors record
// every execution, and the effect of the idempotent one, in a file the test
// reads; a process told to block stops at one point of a run and waits to
// be killed.
package killdesk
