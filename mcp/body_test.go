package mcp_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/mcp"
)

// rawPost writes a POST's head on a new connection and its body in the
// background, and returns the response.
func rawPost(t *testing.T, e *env, length int, body io.Reader) (*http.Response, string) {
	t.Helper()
	addr := strings.TrimPrefix(e.http.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer ro-key\r\nContent-Length: %d\r\n\r\n", addr, length)
	go func() { _, _ = io.Copy(conn, body) }()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestSlowBodiesAreCutWhileSessionsSurvive(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.BodyTimeout = 200 * time.Millisecond })
	held := e.mustConnect("ro-key")
	// 100 bytes at one every 50 ms: five seconds, 25 deadlines.
	started := time.Now()
	resp, body := rawPost(t, e, 100, registrytest.SlowBody(100, 50*time.Millisecond))
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(body, "did not arrive within 200ms") || !strings.Contains(body, "--body-timeout") {
		t.Fatalf("slow body: %d %q, want 408 naming the deadline and its flag", resp.StatusCode, body)
	}
	if time.Since(started) > 3*time.Second {
		t.Fatalf("the slow body was cut after %s, want about 200ms", time.Since(started))
	}
	// A session whose stream outlived the deadline still works.
	time.Sleep(300 * time.Millisecond)
	if names := held.names(t); len(names) == 0 {
		t.Fatal("the held session lists nothing")
	}
}

func TestBodiesReadAtOnceAreCapped(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.MaxReadingBodies = 1; c.BodyTimeout = 5 * time.Second })
	// One body arriving slowly holds the only slot.
	addr := strings.TrimPrefix(e.http.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAuthorization: Bearer ro-key\r\nContent-Length: 100\r\n\r\n{", addr)
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, body := post(t, e, initBody, nil)
		if resp.StatusCode == http.StatusTooManyRequests {
			if resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "Config.MaxReadingBodies") {
				t.Fatalf("429 without Retry-After or the setting: %v %q", resp.Header, body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never refused while another body was being read: last %d %q", resp.StatusCode, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
