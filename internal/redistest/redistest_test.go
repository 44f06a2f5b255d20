package redistest_test

import (
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/redistest"
)

func TestStartKillRestart(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{AOF: true})
	if want := "redis://" + srv.Addr + "/0"; srv.URL() != want {
		t.Fatalf("URL() = %q, want %q", srv.URL(), want)
	}
	c := srv.Client(t)
	ctx := t.Context()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if aof, err := c.ConfigGet(ctx, "appendfsync").Result(); err != nil || aof["appendfsync"] != "always" {
		t.Fatalf("appendfsync = %v, %v; want always", aof, err)
	}
	srv.Kill()
	if conn, err := net.Dial("tcp", srv.Addr); err == nil {
		conn.Close()
		t.Fatal("the server takes connections after Kill")
	}
	srv.Kill() // killing a stopped server does nothing
	srv.Restart(t)
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET after restart = %q, %v; want the value written before the kill", v, err)
	}
	srv.Restart(t) // a running server is killed first
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

func TestWithoutAOF(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	c := srv.Client(t)
	ctx := t.Context()
	got, err := c.ConfigGet(ctx, "appendonly").Result()
	if err != nil || got["appendonly"] != "no" {
		t.Fatalf("appendonly = %v, %v; want no", got, err)
	}
	if got, err := c.ConfigGet(ctx, "save").Result(); err != nil || got["save"] != "" {
		t.Fatalf("save = %v, %v; want none", got, err)
	}
}

// TestParallelServers: servers of parallel tests are independent.
func TestParallelServers(t *testing.T) {
	t.Parallel()
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t, redistest.Options{})
			c := srv.Client(t)
			if n, err := c.Incr(t.Context(), "n").Result(); err != nil || n != 1 {
				t.Fatalf("INCR on a new server = %d, %v; want 1", n, err)
			}
		})
	}
}

// fatalTB records the first Fatalf and stops its goroutine, as testing's
// does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestMissingServerFails: without redis-server on PATH the test fails
// (it does not skip) and says how to install it.
func TestMissingServerFails(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		redistest.Start(f, redistest.Options{})
	}()
	<-done
	if !strings.Contains(f.msg, "redis-server is not on PATH") || !strings.Contains(f.msg, "./scripts/test") {
		t.Fatalf("Start without redis-server: %q, want a failure pointing to ./scripts/test", f.msg)
	}
}
