package main

import (
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
)

const (
	rotationKeyA = "rotation-key-a-0123456789abcdef"
	rotationKeyB = "rotation-key-b-0123456789abcdef"
)

// rotationKeys is a keys file listing one consumer key.
func rotationKeys(name, key string) string {
	return `{"keys": [{"name": "` + name + `", "key": "` + key + `", "role": "consumer"}]}`
}

// TestRegistryReloadsKeysOnSIGHUP runs the quiver binary's registry serve
// with key A, and rewrites its keys file with key B only: after SIGHUP, B
// is accepted and A refused (401) from the next request on, over the
// keep-alive connection the client had before, while a long poll let in
// with A before the reload completes. A file that does not parse, and one
// others may read, are logged and leave the keys in force. Each reload
// logs one line, and no key is ever printed.
func TestRegistryReloadsKeysOnSIGHUP(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGHUP on Windows")
	}
	bin := quiverBinary(t)
	dir := t.TempDir()
	keys := writeMode(t, dir, "keys.json", rotationKeys("a", rotationKeyA), 0o600)
	p := startQuiverProcess(t, bin, "registry", "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--keys", keys)
	if !strings.Contains(p.stdout.String(), "SIGHUP reloads "+keys) {
		t.Errorf("the banner does not say SIGHUP reloads the keys:\n%s", p.stdout.String())
	}
	url := bannerRegistryURL(t, p.stdout.String())
	list := url + "/v1/toolsets"

	// One connection, kept alive across the reload.
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: 10 * time.Second}
	defer c.CloseIdleConnections()
	get := func(key string) (status int, reused bool) {
		t.Helper()
		return registrytest.KeyedGet(t, c, list, key)
	}
	want := func(when, name, key string, status int) {
		t.Helper()
		if got, reused := get(key); got != status || !reused {
			t.Errorf("%s: key %s answered %d (connection reused: %v), want %d over the kept connection", when, name, got, reused, status)
		}
	}
	if got, _ := get(rotationKeyA); got != http.StatusOK {
		t.Fatalf("before the reload: key A answered %d, want 200", got)
	}
	want("before the reload", "B", rotationKeyB, http.StatusUnauthorized)

	// A long poll with key A, on a connection of its own, across the
	// reload.
	const pollWait = 4 * time.Second
	type pollResult struct {
		status int
		took   time.Duration
		err    error
	}
	polled := make(chan pollResult, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, url+"/v1/catalog/changes?wait_ms="+strconv.FormatInt(pollWait.Milliseconds(), 10), nil)
		req.Header.Set("Authorization", "Bearer "+rotationKeyA)
		start := time.Now()
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			polled <- pollResult{err: err}
			return
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		polled <- pollResult{status: resp.StatusCode, took: time.Since(start), err: err}
	}()
	time.Sleep(300 * time.Millisecond) // let the poll in

	reloaded := func(n int) {
		t.Helper()
		if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(p.stderr.String(), `msg="registry: keys`) < n {
			if time.Now().After(deadline) {
				t.Fatalf("no reload line %d in 10s:\n%s", n, p.stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	writeMode(t, dir, "keys.json", rotationKeys("b", rotationKeyB), 0o600)
	reloaded(1)
	// The line comes after the swap: B works at once.
	want("after the reload", "B", rotationKeyB, http.StatusOK)
	want("after the reload", "A", rotationKeyA, http.StatusUnauthorized)
	if line := `level=INFO msg="registry: keys reloaded" file=` + keys + " keys=1\n"; !strings.Contains(p.stderr.String(), line) {
		t.Errorf("stderr has no %q:\n%s", line, p.stderr.String())
	}

	select {
	case r := <-polled:
		if r.err != nil || r.status != http.StatusOK || r.took < pollWait-time.Second {
			t.Errorf("the long poll let in with key A before the reload: %d after %v (%v), want 200 after its %v wait", r.status, r.took, r.err, pollWait)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the long poll did not end")
	}

	// A file that does not parse: logged, B stays.
	writeMode(t, dir, "keys.json", `{"keys": [{"name": "c", "key": "shortkey9", "role": "root"}]}`, 0o600)
	reloaded(2)
	want("after a bad file", "B", rotationKeyB, http.StatusOK)
	// A file others may read: logged, B stays, A (which it lists) stays out.
	writeMode(t, dir, "keys.json", rotationKeys("a", rotationKeyA), 0o644)
	reloaded(3)
	want("after a 0644 file", "B", rotationKeyB, http.StatusOK)
	want("after a 0644 file", "A", rotationKeyA, http.StatusUnauthorized)

	stderr := p.stderr.String()
	for _, line := range []string{
		`level=ERROR msg="registry: keys not reloaded, the keys in force stay" file=` + keys + ` err="registry: keys file ` + keys + `: key 0 (\"c\"): `,
		`level=ERROR msg="registry: keys not reloaded, the keys in force stay" file=` + keys + ` err="--keys ` + keys + ` has mode 0644: `,
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("stderr has no %q:\n%s", line, stderr)
		}
	}
	if n := strings.Count(stderr, `msg="registry: keys`); n != 3 {
		t.Errorf("%d reload lines for 3 reloads:\n%s", n, stderr)
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM; stderr:\n%s", code, p.stderr.String())
	}
	for _, secret := range []string{rotationKeyA, rotationKeyB, "shortkey9"} {
		if strings.Contains(p.stdout.String()+p.stderr.String(), secret) {
			t.Errorf("key %q was printed:\nstdout:\n%s\nstderr:\n%s", secret, p.stdout.String(), p.stderr.String())
		}
	}
}
