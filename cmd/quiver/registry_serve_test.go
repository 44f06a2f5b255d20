package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/bench"
)

func TestServeBannerAndStop(t *testing.T) {
	data := filepath.Join(t.TempDir(), "new", "data")
	s := startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", data)
	url := s.url(t)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Fatalf("banner names %q, want the port listened on", url)
	}
	wantBanner := "registry  " + url + "\n" +
		"openapi   " + url + "/openapi.json\n" +
		"store     embedded bbolt, " + filepath.Join(data, "registry.db") + "\n" +
		"data      " + data + "\n" +
		"keys      open (loopback only, no --keys)\n" +
		"Serving until Ctrl-C (SIGINT) or SIGTERM.\n"
	if got := s.stdout.String(); got != wantBanner {
		t.Errorf("banner\n got: %q\nwant: %q", got, wantBanner)
	}
	if fi, err := os.Stat(data); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data folder: %v, %v; want it created 0700", fi, err)
	}
	for _, path := range []string{"/healthz", "/readyz", "/openapi.json"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
	}

	// A provider's events are logged on stderr.
	c, err := registry.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- registry.Serve(ctx, c, registry.Registration{Toolset: bench.Toolset(), Revision: "r1",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, bench.NewCounter())
	}()
	waitProviders(t, c, bench.ToolsetName)
	out := quiver(t, "registry", "call", "bench.echo", "--payload", `{"text": "up"}`, "--registry", url).mustSucceed(t)
	if !strings.Contains(out.stdout, `"text": "up"`) {
		t.Errorf("call through the served registry:\n%s", out.stdout)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`msg="registry: provider registered" toolset=bench`, `msg="registry: toolset active" toolset=bench`} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("stderr has no %q:\n%s", want, s.stderr.String())
		}
	}

	r := s.stop()
	if r.code != exitOK || !strings.HasSuffix(r.stdout, "Serving until Ctrl-C (SIGINT) or SIGTERM.\nRegistry stopped.\n") {
		t.Errorf("stop: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("the registry still answers after its stop")
	}
	// The store was closed: another registry opens the folder at once.
	s = startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", data)
	if r := s.stop(); r.code != exitOK {
		t.Errorf("restart: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestServeRefusesOpenAccessBeyondLoopback: without --keys, an address
// other than loopback is a usage error naming --keys.
func TestServeRefusesOpenAccessBeyondLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:7420", "example.com:7420"} {
		out := quiver(t, "registry", "serve", "--addr", addr, "--data", t.TempDir())
		want := "quiver: --addr " + addr + " is not a loopback address and there is no --keys: pass --keys FILE"
		if out.code != exitUsage || !strings.HasPrefix(out.stderr, want) || out.stdout != "" {
			t.Errorf("--addr %s: exit %d, stdout %q, stderr %q", addr, out.code, out.stdout, out.stderr)
		}
	}
	for _, host := range []string{"127.0.0.1", "127.1.2.3", "::1", "localhost", "LOCALHOST"} {
		if !loopbackHost(host) {
			t.Errorf("%s is loopback", host)
		}
	}
}

func TestServeWithKeys(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(keys, []byte(`{"keys": [{"name": "reader", "key": "consumer-secret-0123456789", "role": "consumer"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--keys", keys)
	if !strings.Contains(s.stdout.String(), "keys      "+keys+"\n") {
		t.Errorf("banner does not name the keys file:\n%s", s.stdout.String())
	}
	url := s.url(t)
	out := quiver(t, "registry", "ls", "--registry", url)
	if out.code != exitError || !strings.HasPrefix(out.stderr, "quiver: unauthorized: ") || !strings.Contains(out.stderr, "--key KEY or $QUIVER_REGISTRY_KEY") {
		t.Errorf("no key: exit %d, stderr %q", out.code, out.stderr)
	}
	quiver(t, "registry", "ls", "--registry", url, "--key", "consumer-secret-0123456789").mustSucceed(t)
	t.Setenv(envRegistryKey, "consumer-secret-0123456789")
	quiver(t, "registry", "ls", "--registry", url).mustSucceed(t)
}

// TestServeFailures: a taken port, a data folder another registry holds and
// an unreadable keys file fail with exit 1 and say what to do.
func TestServeFailures(t *testing.T) {
	ln, err := loopback.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out := quiver(t, "registry", "serve", "--addr", ln.Addr().String(), "--data", t.TempDir())
	if out.code != exitError || !strings.HasPrefix(out.stderr, "quiver: listen on "+ln.Addr().String()+": the address is in use") || strings.Contains(out.stderr, "for usage") {
		t.Errorf("port taken: exit %d, stderr %q", out.code, out.stderr)
	}

	held := t.TempDir()
	startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", held)
	start := time.Now()
	out = quiver(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", held)
	if out.code != exitError || !strings.HasPrefix(out.stderr, "quiver: data folder "+held+" is in use by another registry") {
		t.Errorf("data folder held: exit %d, stderr %q", out.code, out.stderr)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the refusal took %v", time.Since(start))
	}

	out = quiver(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", filepath.Join(t.TempDir(), "missing.json"))
	if out.code != exitError || !strings.HasPrefix(out.stderr, "quiver: registry: keys file: open ") {
		t.Errorf("missing keys file: exit %d, stderr %q", out.code, out.stderr)
	}
}

func TestDataDirFor(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	for _, tt := range []struct {
		goos string
		vars map[string]string
		want string
	}{
		{"linux", map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, "/xdg/quiver"},
		{"linux", map[string]string{"XDG_DATA_HOME": "relative", "HOME": "/home/u"}, "/home/u/.local/share/quiver"},
		{"freebsd", map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/quiver"},
		{"darwin", map[string]string{"HOME": "/Users/u", "XDG_DATA_HOME": "/xdg"}, "/Users/u/Library/Application Support/quiver"},
		{"plan9", map[string]string{"home": "/usr/u"}, "/usr/u/lib/quiver"},
		{"windows", map[string]string{"LocalAppData": "/appdata"}, "/appdata/quiver"},
	} {
		got, err := dataDirFor(tt.goos, env(tt.vars))
		if err != nil || got != tt.want {
			t.Errorf("%s %v: %q, %v; want %q", tt.goos, tt.vars, got, err, tt.want)
		}
	}
	for _, goos := range []string{"linux", "darwin", "windows", "plan9"} {
		if got, err := dataDirFor(goos, env(nil)); err == nil {
			t.Errorf("%s with no environment: %q, want an error", goos, got)
		}
	}
}
