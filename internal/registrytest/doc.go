// Package registrytest starts real registries for tests: a server on an
// embedded store in a temporary folder, on a loopback port, with clients
// and providers that count the executions they run. Tests of the server,
// the provider SDK, the command line and the fault tests share it.
package registrytest
