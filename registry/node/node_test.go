package node_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/store/boltstore"
	"github.com/quiver-go/quiver/registry/stores"
)

// quiet is a node configuration on the embedded store in dir that logs
// nothing.
func quiet(dir string) node.Config {
	return node.Config{
		Store:  stores.Config{Kind: stores.Embedded, Dir: dir},
		Server: server.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
	}
}

// get sends GET url with c and returns the status, or the error.
func get(t *testing.T, c *http.Client, url string) (int, http.Header, error) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		return 0, nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, nil
}

// TestStartServesOnAFreeLoopbackPortAndCloses: the zero node serves the
// registry on 127.0.0.1, says which store it opened, and Close (twice)
// lets the data folder go.
func TestStartServesOnAFreeLoopbackPortAndCloses(t *testing.T) {
	dir := t.TempDir()
	n, err := node.Start(context.Background(), quiet(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(n.URL, "http://127.0.0.1:") || n.URL != "http://"+n.Addr {
		t.Errorf("URL %q, Addr %q: want http:// and a port of 127.0.0.1", n.URL, n.Addr)
	}
	if want := filepath.Join(dir, stores.FileName); n.File != want || !strings.Contains(n.Describe, want) {
		t.Errorf("File %q, Describe %q: want %s", n.File, n.Describe, want)
	}
	if code, _, err := get(t, http.DefaultClient, n.URL+"/readyz"); err != nil || code != http.StatusOK {
		t.Fatalf("GET /readyz: %d, %v", code, err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, _, err := get(t, http.DefaultClient, n.URL+"/readyz"); err == nil {
		t.Error("the closed node still answers")
	}
	st, err := boltstore.Open(filepath.Join(dir, stores.FileName))
	if err != nil {
		t.Fatalf("the data folder is still held after Close: %v", err)
	}
	st.Close()
}

// TestStartFailsLeavingNothingOpen: a taken address fails Start after the
// store opened, and the store is closed again; a Config that sets the
// server's store is refused, and the listener it passed is closed.
func TestStartFailsLeavingNothingOpen(t *testing.T) {
	dir := t.TempDir()
	taken, err := loopback.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	c := quiet(dir)
	c.Addr = taken.Addr().String()
	if _, err := node.Start(context.Background(), c); err == nil {
		t.Fatal("Start on a taken address succeeded")
	}
	st, err := boltstore.Open(filepath.Join(dir, stores.FileName))
	if err != nil {
		t.Fatalf("a failed Start left the data folder held: %v", err)
	}

	ln, err := loopback.Listen()
	if err != nil {
		t.Fatal(err)
	}
	c = quiet(t.TempDir())
	c.Server.Store, c.Listener = st, ln
	if _, err := node.Start(context.Background(), c); err == nil || !strings.Contains(err.Error(), "leave them nil") {
		t.Fatalf("Start with Config.Server.Store: %v, want a refusal", err)
	}
	st.Close()
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the listener of a failed Start was not closed: Accept: %v", err)
	}
}

// TestOptionsReachTheNode: the node serves on the listener given, through
// the handler wrapper, the service on the wrapped store.
func TestOptionsReachTheNode(t *testing.T) {
	ln, err := loopback.Listen()
	if err != nil {
		t.Fatal(err)
	}
	wrapped := false
	c := quiet(t.TempDir())
	c.Listener = ln
	c.WrapStore = func(st store.Store) store.Store { wrapped = true; return st }
	c.Handler = func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Node", "wrapped")
			h.ServeHTTP(w, r)
		})
	}
	n, err := node.Start(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.Addr != ln.Addr().String() || !wrapped {
		t.Fatalf("Addr %s (listener %s), store wrapped %v", n.Addr, ln.Addr(), wrapped)
	}
	code, h, err := get(t, http.DefaultClient, n.URL+"/readyz")
	if err != nil || code != http.StatusOK || h.Get("X-Node") != "wrapped" {
		t.Fatalf("GET /readyz: %d %v, X-Node %q", code, err, h.Get("X-Node"))
	}
}

// TestTLS: with a TLS config the node serves HTTPS, and says so in URL.
func TestTLS(t *testing.T) {
	cert, pool := registrytest.SelfSignedCert(t)
	c := quiet(t.TempDir())
	c.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	n, err := node.Start(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if !strings.HasPrefix(n.URL, "https://") {
		t.Fatalf("URL %q: want https://", n.URL)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	if code, _, err := get(t, hc, n.URL+"/readyz"); err != nil || code != http.StatusOK {
		t.Fatalf("GET /readyz over TLS: %d, %v", code, err)
	}
	// net/http answers a plain request on a TLS port 400.
	if code, _, err := get(t, http.DefaultClient, "http://"+n.Addr+"/readyz"); err == nil && code == http.StatusOK {
		t.Error("the TLS node served plain HTTP")
	}
}

// TestCloseFinishesRequestsAbortCutsThem: a request in flight when Close
// runs is answered; one in flight when Abort runs ends with its
// connection cut, at once.
func TestCloseFinishesRequestsAbortCutsThem(t *testing.T) {
	for _, abort := range []bool{false, true} {
		name := map[bool]string{false: "Close", true: "Abort"}[abort]
		t.Run(name, func(t *testing.T) {
			entered := make(chan struct{}, 1)
			c := quiet(t.TempDir())
			c.Handler = func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/slow" {
						entered <- struct{}{}
						select {
						case <-time.After(300 * time.Millisecond):
							w.WriteHeader(http.StatusNoContent)
						case <-r.Context().Done():
						}
						return
					}
					h.ServeHTTP(w, r)
				})
			}
			n, err := node.Start(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			type answer struct {
				code int
				err  error
			}
			answered := make(chan answer, 1)
			go func() {
				code, _, err := get(t, &http.Client{Transport: &http.Transport{}}, n.URL+"/slow")
				answered <- answer{code, err}
			}()
			<-entered
			start := time.Now()
			if abort {
				err = n.Abort()
			} else {
				err = n.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			a := <-answered
			switch {
			case !abort && (a.err != nil || a.code != http.StatusNoContent):
				t.Errorf("Close: the request in flight got %d, %v; want 204", a.code, a.err)
			case abort && a.err == nil:
				t.Errorf("Abort: the request in flight was answered %d; want its connection cut", a.code)
			case abort && time.Since(start) > 250*time.Millisecond:
				t.Errorf("Abort took %v: it waited for the request", time.Since(start))
			}
		})
	}
}
