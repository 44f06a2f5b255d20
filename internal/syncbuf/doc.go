// Package syncbuf holds Buffer, the one bytes.Buffer that several
// goroutines may write while another reads it: the output of a command or
// subprocess a test runs, a log handler's lines. It imports nothing of the
// module, so that any test helper (registrytest, redistest) may use it.
package syncbuf
