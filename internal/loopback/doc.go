// Package loopback hands out loopback addresses to listen on, for the
// product (the registry nodes and benches a command starts in its process)
// and for tests alike.
//
// Listen is the way to serve on a free port: the listener it returns holds
// the port, so nothing can take it between choosing and binding. FreeAddr
// is for the one case Listen cannot serve: a port that must be known before
// the process that binds it starts (a redis-server, a registry process a
// test kills and starts again on the same address).
//
// Invariants:
//   - Every address is on 127.0.0.1: nothing handed out here listens
//     beyond the machine.
//   - FreeAddr never returns a port twice in one process, and only ports
//     below the usual ephemeral range, so that neither another caller nor
//     an outgoing connection of the machine is likely to take it before
//     its process binds it.
package loopback
