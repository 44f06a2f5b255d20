package faulttest

import (
	"bytes"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
)

// redisProxy forwards TCP connections to a Redis server. Armed, it passes
// on the first command that holds every needle, swallows its reply, closes
// every connection and refuses new ones for a while: Redis ran the
// command, its client saw the connection break before the reply and could
// not get through again for longer than go-redis retries a command — as
// when Redis dies right after it wrote a command to its append-only file.
// Its block rules cut chosen commands before they reach Redis.
type redisProxy struct {
	l      net.Listener
	target string

	mu          sync.Mutex
	conns       []net.Conn
	needles     [][]byte
	refuse      time.Duration
	refuseUntil time.Time
	fired       chan struct{}
	rules       []*blockRule
}

// blockRule makes the proxy cut, without passing it on, every command
// that holds all its needles while the rule is active: to the client the
// connection broke before the command reached Redis.
type blockRule struct {
	needles [][]byte
	active  bool
	matched int
	// onMatch, when set, runs at each match with the proxy's lock held
	// (it may change rules).
	onMatch func()
}

// rule adds a block rule, active or not.
func (p *redisProxy) rule(active bool, needles ...string) *blockRule {
	r := &blockRule{active: active}
	for _, n := range needles {
		r.needles = append(r.needles, []byte(n))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, r)
	return r
}

// setActive turns a rule on or off.
func (p *redisProxy) setActive(r *blockRule, active bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r.active = active
}

// matched is how many commands a rule cut.
func (p *redisProxy) matched(r *blockRule) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return r.matched
}

// blocks reports whether an active rule cuts the command in chunk,
// counting the match.
func (p *redisProxy) blocks(chunk []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.rules {
		if r.active && holdsAll(chunk, r.needles) {
			r.matched++
			if r.onMatch != nil {
				r.onMatch()
			}
			return true
		}
	}
	return false
}

// startRedisProxy listens on a loopback port in front of target (host:port)
// until the test ends.
func startRedisProxy(t *testing.T, target string) *redisProxy {
	t.Helper()
	l, err := loopback.Listen()
	if err != nil {
		t.Fatal(err)
	}
	p := &redisProxy{l: l, target: target, fired: make(chan struct{})}
	go p.serve()
	t.Cleanup(func() {
		l.Close()
		p.closeAll()
	})
	return p
}

// URL is the proxy's Redis URL (database 0).
func (p *redisProxy) URL() string { return "redis://" + p.l.Addr().String() + "/0" }

// arm makes the proxy cut the connections after the next command holding
// every needle, and refuse connections for refuse after that. Fired is
// closed then.
func (p *redisProxy) arm(refuse time.Duration, needles ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.needles = nil
	for _, n := range needles {
		p.needles = append(p.needles, []byte(n))
	}
	p.refuse = refuse
}

// Fired is closed once the armed command went through and its reply was
// swallowed.
func (p *redisProxy) Fired() <-chan struct{} { return p.fired }

func (p *redisProxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refusing := time.Now().Before(p.refuseUntil)
		p.mu.Unlock()
		if refusing {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		pair := &proxyPair{}
		go p.toServer(c, s, pair)
		go p.toClient(s, c, pair)
	}
}

// proxyPair is one client connection and its server connection.
type proxyPair struct {
	mu sync.Mutex
	// swallow: the armed command went to the server, its reply is due.
	swallow bool
}

// toServer copies the client's commands to the server, looking for the
// armed command.
func (p *redisProxy) toServer(c, s net.Conn, pair *proxyPair) {
	defer s.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if p.blocks(chunk) {
				c.Close()
				return
			}
			p.mu.Lock()
			if len(p.needles) > 0 && holdsAll(chunk, p.needles) {
				pair.mu.Lock()
				pair.swallow = true
				pair.mu.Unlock()
			}
			p.mu.Unlock()
			if _, werr := s.Write(chunk); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// toClient copies the server's replies to the client; the reply to the
// armed command is swallowed, and the connections are cut.
func (p *redisProxy) toClient(s, c net.Conn, pair *proxyPair) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			pair.mu.Lock()
			swallow := pair.swallow
			pair.mu.Unlock()
			// A script not loaded yet is refused NOSCRIPT and sent again
			// as EVAL: wait for that one.
			if swallow && !bytes.HasPrefix(buf[:n], []byte("-NOSCRIPT")) {
				p.fire()
				return
			}
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// fire disarms the proxy, starts refusing connections and cuts the open
// ones.
func (p *redisProxy) fire() {
	p.mu.Lock()
	if p.needles == nil {
		p.mu.Unlock()
		return
	}
	p.needles = nil
	p.refuseUntil = time.Now().Add(p.refuse)
	p.mu.Unlock()
	p.closeAll()
	close(p.fired)
}

func (p *redisProxy) closeAll() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

func holdsAll(b []byte, needles [][]byte) bool {
	for _, n := range needles {
		if !bytes.Contains(b, n) {
			return false
		}
	}
	return true
}
