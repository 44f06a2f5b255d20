// Package tour is the run tour of examples/runtour, on any engine: an
// agent on an offline model lists orders (a bounded result), asks to cancel
// one — a tool behind a confirmation, so the run suspends — and, approved,
// continues to its answer, its events printed as a person would read them.
// examples/runtour runs it on the in-memory engine (or a data folder), and
// engine/temporal's examples/runtour on Temporal.
package tour
