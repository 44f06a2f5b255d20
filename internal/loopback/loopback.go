package loopback

import (
	"errors"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// Host is the loopback address everything here listens on.
const Host = "127.0.0.1"

// Listen listens on a free TCP port of Host: the listener holds the port
// from the start, so nothing can take it first. The caller serves on it and
// closes it; its Addr says where. Its error is net.Listen's, which names
// the address.
func Listen() (net.Listener, error) {
	return net.Listen("tcp", net.JoinHostPort(Host, "0"))
}

// The ports FreeAddr picks from: below Linux's ephemeral range (32768 on),
// above the ports services usually claim.
const (
	firstPort = 20000
	lastPort  = 31999
)

// handedOut holds the ports FreeAddr returned in this process.
var handedOut sync.Map

// FreeAddr returns a loopback address (127.0.0.1:port) with a port nobody
// listened on a moment ago, for a process to bind that is not started yet.
// Another process may still take the port first: a caller that can retry on
// another one should (a bind that fails with "address in use"). Prefer
// Listen whenever the caller can keep the listener.
func FreeAddr() (string, error) {
	for range 200 {
		port := firstPort + rand.IntN(lastPort-firstPort+1)
		if _, taken := handedOut.LoadOrStore(port, true); taken {
			continue
		}
		addr := net.JoinHostPort(Host, strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			ln.Close()
			return addr, nil
		}
	}
	return "", errors.New("no free loopback port found in 200 tries")
}
