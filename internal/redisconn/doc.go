// Package redisconn holds what the project's Redis-backed parts share: a
// client made from a URL the same way everywhere (NewClient), and for the
// stores (the registry's, the runtime's) a connection with a key layout
// checked under a prefix at open, a Close that closes only a client the
// store made and only once, and the wrapping of a command's or a script's
// error (Conn).
package redisconn
