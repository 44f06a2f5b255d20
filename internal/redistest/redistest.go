package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/internal/syncbuf"
)

// Options configure a server.
type Options struct {
	// AOF turns the append-only file on, synced at every write
	// (--appendonly yes --appendfsync always).
	AOF bool
	// Addr is the address to listen on, 127.0.0.1:PORT; empty picks a free
	// port. The test fails when a fixed address is taken.
	Addr string
}

// Server is a redis-server subprocess.
type Server struct {
	// Addr is the server's address, 127.0.0.1:port.
	Addr string

	bin, dir string
	opts     Options

	mu   sync.Mutex
	proc *process // nil when the server is not running
}

// process is one run of redis-server.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}   // closed when the process has exited
	log  *syncbuf.Buffer // its standard output and error
}

// startTimeout is how long a server may take to answer PING.
const startTimeout = 15 * time.Second

// Start starts a redis-server on a free loopback port and waits until it
// answers PING; the test's cleanup kills it. It fails the test when
// redis-server is not on PATH or does not start.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redistest: redis-server is not on PATH (%v): run ./scripts/test, which installs it (apt-get install redis-server)", err)
	}
	s := &Server{bin: bin, dir: t.TempDir(), opts: o}
	t.Cleanup(s.Kill)
	if o.Addr != "" {
		s.Addr = o.Addr
		if err := s.start(); err != nil {
			t.Fatalf("redistest: %v", err)
		}
		return s
	}
	// Another process may take the free port before redis-server binds
	// it: try again on another one.
	for attempt := 1; ; attempt++ {
		addr, err := loopback.FreeAddr()
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		s.Addr = addr
		err = s.start()
		if err == nil {
			return s
		}
		if !errors.Is(err, errAddrInUse) || attempt == 5 {
			t.Fatalf("redistest: %v", err)
		}
	}
}

// URL is the server's URL for database 0, redis://127.0.0.1:port/0.
func (s *Server) URL() string {
	return "redis://" + s.Addr + "/0"
}

// Client returns a go-redis client of the server, closed at the test's
// cleanup.
func (s *Server) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr: s.Addr,
		// redis-server 7.0 does not know CLIENT MAINT_NOTIFICATIONS.
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// Kill stops the server with SIGKILL, as a crash would, and waits until it
// has exited. Killing a server that is not running does nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p != nil {
		p.kill()
	}
}

// Restart kills the server if it runs (see Kill) and starts it again on the
// same port and folder: with Options.AOF, every write it acknowledged is
// there again. It fails the test when the server does not start.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Kill()
	if err := s.start(); err != nil {
		t.Fatalf("redistest: restart: %v", err)
	}
}

// errAddrInUse: redis-server could not bind its port.
var errAddrInUse = errors.New("address in use")

// start runs redis-server on s.Addr and waits until it answers PING.
func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	args := []string{"--port", port, "--bind", "127.0.0.1", "--protected-mode", "yes",
		"--dir", s.dir, "--save", "", "--appendonly", "no"}
	if s.opts.AOF {
		args = append(args[:len(args)-1], "yes", "--appendfsync", "always")
	}
	p := &process{cmd: exec.Command(s.bin, args...), done: make(chan struct{}), log: &syncbuf.Buffer{}}
	p.cmd.Dir = s.dir
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	p.cmd.SysProcAttr = sysProcAttr()
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	deadline := time.Now().Add(startTimeout)
	for {
		if ping(s.Addr) {
			s.mu.Lock()
			s.proc = p
			s.mu.Unlock()
			return nil
		}
		select {
		case <-p.done:
			log := p.log.String()
			err := fmt.Errorf("redis-server on %s exited before answering PING: %s\n%s", s.Addr, p.cmd.ProcessState, log)
			if strings.Contains(log, "Address already in use") {
				err = fmt.Errorf("%w: %w", errAddrInUse, err)
			}
			return err
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.kill()
			return fmt.Errorf("redis-server on %s did not answer PING within %v:\n%s", s.Addr, startTimeout, p.log.String())
		}
	}
}

// kill sends SIGKILL and waits until the process has exited.
func (p *process) kill() {
	p.cmd.Process.Kill() // SIGKILL
	<-p.done
}

// ping reports whether a server answers PING on addr (not while it loads
// its data: it answers -LOADING then).
func ping(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// prefixes numbers the key prefixes NewPrefix hands out.
var prefixes atomic.Int64

// NewPrefix returns a key prefix no other caller in this process got
// ("test<n>:"), so that tests sharing one server do not see each other's
// keys.
func NewPrefix() string {
	return fmt.Sprintf("test%d:", prefixes.Add(1))
}
