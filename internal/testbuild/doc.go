// Package testbuild builds the helper programs tests start as
// subprocesses (MCP servers over stdio, crash programs): once per test
// binary and package, with -race when the test binary has it, into a
// temporary folder removed by [Cleanup].
package testbuild
