package loopback_test

import (
	"net"
	"testing"

	"github.com/quiver-go/quiver/internal/loopback"
)

// TestListenIsOnLoopback: the listener holds a port of 127.0.0.1.
func TestListenIsOnLoopback(t *testing.T) {
	ln, err := loopback.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !a.IP.IsLoopback() || a.Port == 0 {
		t.Fatalf("listening on %v, want a port of 127.0.0.1", ln.Addr())
	}
}

// TestFreeAddrIsFreeAndNeverTwice: each address can be bound, none is
// handed out twice, and every port is below the ephemeral range.
func TestFreeAddrIsFreeAndNeverTwice(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		addr, err := loopback.FreeAddr()
		if err != nil {
			t.Fatal(err)
		}
		if seen[addr] {
			t.Fatalf("%s handed out twice", addr)
		}
		seen[addr] = true
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is not free: %v", addr, err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if p < 20000 || p >= 32768 {
			t.Fatalf("port %d: want one below the ephemeral range", p)
		}
	}
}
