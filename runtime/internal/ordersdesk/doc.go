// Package ordersdesk is the agent the durable-store tests run in their
// own processes and benchmarks: agent "desk" over orders.cancelOrder,
// which needs a person's confirmation, with an executor that records each
// run of the call in a file (so a test counts them across processes) and
// a script that plays the step its transcript has reached (so a process
// continuing a run restored from a store plays the answer).
package ordersdesk
