package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/toolcall"
)

// TestResults: each content shape maps to its result or failure, over
// stdio and streamable HTTP.
func TestResults(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			c := connect(t, tr, upstream.Config{MaxResultBytes: 1000})
			ctx := withTimeout(t, 30*time.Second)
			wantResult(t, call(t, ctx, c, "ts", "echo", `{"text":"hé"}`), `{"text":"hé","length":3}`)
			wantResult(t, call(t, ctx, c, "ts", "text", `{}`), `{"text":"plain words"}`)
			wantResult(t, call(t, ctx, c, "ts", "json_text", `{}`), `{"a":1,"b":[true]}`)
			wantResult(t, call(t, ctx, c, "ts", "mixed", `{}`), `{"content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}`)
			wantFailure(t, call(t, ctx, c, "ts", "fail", `{}`), toolcall.KindToolError, "it broke: the disk is full", "fail")
			wantFailure(t, call(t, ctx, c, "ts", "big", `{"bytes":2000}`), toolcall.KindInvalidResult, "more than the limit of 1000")
			wantResult(t, call(t, ctx, c, "ts", "big", `{"bytes":10}`), `{"text":"xxxxxxxxxx"}`)
			wantFailure(t, call(t, ctx, c, "ts", "malformed", `{}`), toolcall.KindInvalidResult, "not a valid MCP tool result")
			wantFailure(t, call(t, ctx, c, "ts", "no_such_tool", `{}`), toolcall.KindToolError, "no_such_tool")
			// The session survived every failure.
			wantResult(t, call(t, ctx, c, "ts", "text", `{}`), `{"text":"plain words"}`)
		})
	}
}

// TestHangingCall: a call that never answers fails at CallTimeout, or at
// its context's deadline, with a timeout failure; the session serves the
// next call.
func TestHangingCall(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			c := connect(t, tr, upstream.Config{CallTimeout: 300 * time.Millisecond})
			// The failure names 300ms only when CallTimeout cut the call
			// (the default is 60s): no clock is read here.
			wantFailure(t, call(t, context.Background(), c, "ts", "hang", `{}`), toolcall.KindTimeout, "300ms")
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			wantFailure(t, call(t, ctx, c, "ts", "hang", `{}`), toolcall.KindTimeout)
			wantResult(t, call(t, withTimeout(t, 10*time.Second), c, "ts", "text", `{}`), `{"text":"plain words"}`)

			// A call its caller cancels returns the cancellation.
			ctx, cancel = context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			if _, err := c.Execute(ctx, &toolcall.Call{Ident: "ts.hang", Payload: json.RawMessage(`{}`)}); err != context.Canceled {
				t.Fatalf("cancelled call: %v, want context.Canceled", err)
			}
		})
	}
}

// TestNeverInitializes: a server that never answers initialize is an
// error naming it and the timeout.
func TestNeverInitializes(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			cfg := upstream.Config{InitializeTimeout: 500 * time.Millisecond}
			if tr == "stdio" {
				cfg.Command, cfg.Args = testServer(t), []string{"-noinit"}
			} else {
				cfg.URL, _ = httpServer(t, "", "-noinit")
			}
			// The error names the configured 500ms only when that bound
			// ended the handshake (the default is 10s): no clock is read
			// here, so a loaded machine cannot fail the test.
			_, err := upstream.Connect(context.Background(), "mute", cfg)
			if err == nil {
				t.Fatal("Connect succeeded")
			}
			for _, want := range []string{`"mute"`, "initialize", "500ms", "InitializeTimeout"} {
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

// TestPagination: many tools on pages of 7 are all listed, once each.
func TestPagination(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			c := connect(t, tr, upstream.Config{}, "-many", "50", "-page", "7")
			listed, err := c.Tools(withTimeout(t, 30*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, tool := range listed {
				seen[tool.Name]++
			}
			for i := range 50 {
				if n := seen[fmt.Sprintf("many_%03d", i)]; n != 1 {
					t.Fatalf("many_%03d listed %d times in %d tools", i, n, len(listed))
				}
			}
			if seen["echo"] != 1 {
				t.Fatal("echo not listed")
			}
		})
	}
}

// TestToolsChanged: a tool the server adds is announced (OnToolsChanged)
// and listed.
func TestToolsChanged(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			changed := make(chan struct{}, 10)
			c := connect(t, tr, upstream.Config{OnToolsChanged: func() { changed <- struct{}{} }})
			ctx := withTimeout(t, 30*time.Second)
			wantResult(t, call(t, ctx, c, "ts", "add_tool", `{}`), `{"text":"added"}`)
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatal("no tools/list_changed")
			}
			listed, err := c.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tool := range listed {
				found = found || tool.Name == "added"
			}
			if !found {
				t.Fatal("the added tool is not listed")
			}
			wantResult(t, call(t, ctx, c, "ts", "added", `{}`), `{"text":"added ran"}`)
		})
	}
}

// TestKilledMidCall: the server is killed while a call runs: the call
// fails outcome_unknown (it may have run), and the next call reconnects
// (a new stdio process; the HTTP server restarted on its address) and
// succeeds.
func TestKilledMidCall(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		c := connect(t, "stdio", upstream.Config{MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
		ctx := withTimeout(t, 30*time.Second)
		var pid struct{ Pid int }
		if err := json.Unmarshal(call(t, ctx, c, "ts", "pid", `{}`).Result, &pid); err != nil || pid.Pid == 0 {
			t.Fatalf("pid: %v", err)
		}
		time.AfterFunc(300*time.Millisecond, func() { _ = syscall.Kill(pid.Pid, syscall.SIGKILL) })
		wantFailure(t, call(t, ctx, c, "ts", "hang", `{}`), toolcall.KindOutcomeUnknown, "may or may not have run", "next call reconnects")
		var again struct{ Pid int }
		if err := json.Unmarshal(call(t, ctx, c, "ts", "pid", `{}`).Result, &again); err != nil {
			t.Fatal(err)
		}
		if again.Pid == pid.Pid || again.Pid == 0 {
			t.Fatalf("pid after the kill %d, before %d: want a new process", again.Pid, pid.Pid)
		}
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		url, cmd := httpServer(t, "")
		c, err := upstream.Connect(context.Background(), "test", upstream.Config{URL: url, MinBackoff: 100 * time.Millisecond, MaxBackoff: 150 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := withTimeout(t, 30*time.Second)
		wantResult(t, call(t, ctx, c, "ts", "text", `{}`), `{"text":"plain words"}`)
		time.AfterFunc(300*time.Millisecond, func() { _ = cmd.Process.Kill() })
		wantFailure(t, call(t, ctx, c, "ts", "hang", `{}`), toolcall.KindOutcomeUnknown, "may or may not have run")

		// Down: the call fails unavailable, nothing ran.
		// Down: the call tries three times, 100ms then 150ms apart (the
		// backoff doubles up to MaxBackoff), and fails unavailable:
		// nothing ran.
		_ = cmd.Wait()
		start := time.Now()
		wantFailure(t, call(t, ctx, c, "ts", "text", `{}`), toolcall.KindUnavailable, "cannot be reached", "nothing ran")
		if d := time.Since(start); d < 250*time.Millisecond {
			t.Fatalf("three attempts took %s: want the backoff (100ms, 150ms) between them", d)
		}

		// Back on the same address: the next call reconnects.
		addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
		httpServer(t, addr)
		wantResult(t, call(t, ctx, c, "ts", "text", `{}`), `{"text":"plain words"}`)
	})
}

// TestServerRequests: sampling, elicitation and roots requests are refused, naming
// the missing handler, unless a handler is installed.
func TestServerRequests(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			ctx := withTimeout(t, 30*time.Second)
			bare := connect(t, tr, upstream.Config{})
			wantFailure(t, call(t, ctx, bare, "ts", "sample", `{}`), toolcall.KindToolError, "upstream.Handlers.Sampling")
			wantFailure(t, call(t, ctx, bare, "ts", "roots", `{}`), toolcall.KindToolError, "upstream.Handlers.Roots")
			// The Go SDK server checks the elicitation capability itself, which
			// the client advertises only with a handler: the request is refused
			// before it is sent.
			wantFailure(t, call(t, ctx, bare, "ts", "elicit", `{}`), toolcall.KindToolError, "elicitation")

			handled := connect(t, tr, upstream.Config{Handlers: upstream.Handlers{
				Roots: func(context.Context) ([]string, error) { return []string{"file:///tmp/work"}, nil },
				Elicitation: func(_ context.Context, req json.RawMessage) (json.RawMessage, error) {
					if !strings.Contains(string(req), "Proceed?") {
						return nil, fmt.Errorf("request %s", req)
					}
					return json.RawMessage(`{"action":"accept","content":{"ok":true}}`), nil
				},
				Sampling: func(_ context.Context, req json.RawMessage) (json.RawMessage, error) {
					if !strings.Contains(string(req), `"hi"`) {
						return nil, fmt.Errorf("request %s", req)
					}
					return json.RawMessage(`{"role":"assistant","model":"m","content":{"type":"text","text":"hello"}}`), nil
				},
			}})
			wantResult(t, call(t, ctx, handled, "ts", "roots", `{}`), `{"roots":["file:///tmp/work"]}`)
			wantResult(t, call(t, ctx, handled, "ts", "elicit", `{}`), `{"action":"accept","content":{"ok":true}}`)
			res := call(t, ctx, handled, "ts", "sample", `{}`)
			if res.Failure != nil || !strings.Contains(string(res.Result), "hello") {
				t.Fatalf("sample: %s %s", res.Result, res.Failure)
			}
		})
	}
}

// TestHTTPCredentials: the bearer token and headers reach the server; a
// wrong token fails Connect.
func TestHTTPCredentials(t *testing.T) {
	url, _ := httpServer(t, "", "-token", "s3cret", "-header", "X-Tenant=acme")
	c, err := upstream.Connect(context.Background(), "auth", upstream.Config{URL: url, BearerToken: "s3cret", Header: http.Header{"X-Tenant": {"acme"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wantResult(t, call(t, withTimeout(t, 10*time.Second), c, "ts", "text", `{}`), `{"text":"plain words"}`)
	if _, err := upstream.Connect(context.Background(), "auth", upstream.Config{URL: url, BearerToken: "wrong", Header: http.Header{"X-Tenant": {"acme"}}, InitializeTimeout: 5 * time.Second}); err == nil {
		t.Fatal("Connect with a wrong token succeeded")
	}
}

// TestConfigErrors: a config naming no transport, or both, is refused.
func TestConfigErrors(t *testing.T) {
	for _, cfg := range []upstream.Config{{}, {Command: "x", URL: "http://x"}, {URL: "http://x", Args: []string{"a"}}} {
		if _, err := upstream.Connect(context.Background(), "bad", cfg); err == nil || !strings.Contains(err.Error(), `"bad"`) {
			t.Fatalf("Connect(%+v) = %v", cfg, err)
		}
	}
}

// TestClose: a call Close cuts, and a call after Close, fail with
// ErrClosed; Close stops the stdio server.
func TestClose(t *testing.T) {
	c := connect(t, "stdio", upstream.Config{})
	ctx := withTimeout(t, 30*time.Second)
	var pid struct{ Pid int }
	if err := json.Unmarshal(call(t, ctx, c, "ts", "pid", `{}`).Result, &pid); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, func() { _ = c.Close() })
	if _, err := c.Execute(ctx, &toolcall.Call{Ident: "ts.hang", Payload: json.RawMessage(`{}`)}); !errors.Is(err, upstream.ErrClosed) {
		t.Fatalf("call cut by Close: %v, want ErrClosed", err)
	}
	if _, err := c.Execute(ctx, &toolcall.Call{Ident: "ts.text", Payload: json.RawMessage(`{}`)}); !errors.Is(err, upstream.ErrClosed) {
		t.Fatalf("call after Close: %v, want ErrClosed", err)
	}
	if _, err := c.Tools(ctx); !errors.Is(err, upstream.ErrClosed) {
		t.Fatalf("Tools after Close: %v, want ErrClosed", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid.Pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the server (pid %d) still runs after Close", pid.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
