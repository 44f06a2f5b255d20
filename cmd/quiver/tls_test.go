package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// TestNonLoopbackAddrNeedsTLS: with keys, a non-loopback --addr still
// needs --tls-cert and --tls-key (or --insecure-http), and the two TLS
// flags go together; each is a usage error found before anything is
// opened or bound.
func TestNonLoopbackAddrNeedsTLS(t *testing.T) {
	dir := t.TempDir()
	registryKeys := filepath.Join(dir, "registry-keys.json")
	if err := os.WriteFile(registryKeys, []byte(`{"keys":[{"name":"a","key":"registry-admin-key-0123456789","role":"admin"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	clientKeys := filepath.Join(dir, "client-keys.json")
	if err := os.WriteFile(clientKeys, []byte(`{"clients":[{"name":"c","key":"client-key-0123456789abcdef","tier":"full"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, key, _ := selfSignedCert(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"registry", "serve", "--addr", "0.0.0.0:0", "--keys", registryKeys}, []string{"--addr 0.0.0.0 is not a loopback address", "--tls-cert", "--insecure-http"}},
		{[]string{"serve", "--addr", "0.0.0.0:0", "--keys", clientKeys}, []string{"--addr 0.0.0.0 is not a loopback address", "--tls-cert", "--insecure-http"}},
		{[]string{"registry", "serve", "--addr", "[::]:0", "--keys", registryKeys}, []string{"not a loopback address", "--tls-cert", "--insecure-http"}},
		{[]string{"serve", "--addr", ":0", "--keys", clientKeys}, []string{"not a loopback address", "--tls-cert", "--insecure-http"}},
		{[]string{"registry", "serve", "--addr", "127.0.0.1:0", "--tls-cert", cert}, []string{"--tls-cert and --tls-key go together"}},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--tls-cert", cert}, []string{"--tls-cert and --tls-key go together"}},
		{[]string{"registry", "serve", "--addr", "0.0.0.0:0", "--keys", registryKeys, "--tls-key", key}, []string{"--tls-cert and --tls-key go together"}},
		{[]string{"serve", "--addr", "0.0.0.0:0", "--keys", clientKeys, "--tls-key", key}, []string{"--tls-cert and --tls-key go together"}},
		{[]string{"registry", "serve", "--addr", "0.0.0.0:0", "--keys", registryKeys, "--tls-cert", cert, "--tls-key", key, "--insecure-http"}, []string{"--insecure-http serves plain HTTP"}},
		{[]string{"serve", "--addr", "0.0.0.0:0", "--keys", clientKeys, "--tls-cert", cert, "--tls-key", key, "--insecure-http"}, []string{"--insecure-http serves plain HTTP"}},
	} {
		// The data folder is opened only after the flags are checked, and
		// the address bound after it: a folder still missing shows that
		// the command stopped before either.
		data := filepath.Join(t.TempDir(), "data")
		args := append(slices.Clone(c.args), "--data", data)
		r := quiver(t, args...)
		if r.code != exitUsage || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want a usage error (%d) and no banner", c.args, r.code, r.stdout, r.stderr, exitUsage)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr %q does not say %q", c.args, r.stderr, w)
			}
		}
		if _, err := os.Stat(data); !os.IsNotExist(err) {
			t.Errorf("%v: the data folder %s was created (%v): the command went past its flag check", c.args, data, err)
		}
	}
}

// TestRegistryServesHTTPS: with --tls-cert and --tls-key the registry
// serves HTTPS with that certificate, its banner says https, and a client
// trusting the certificate lists the toolsets; plain HTTP to the port is
// not served.
func TestRegistryServesHTTPS(t *testing.T) {
	cert, key, pool := selfSignedCert(t)
	s := startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--tls-cert", cert, "--tls-key", key)
	url := s.url(t)
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("banner URL %q, want https://127.0.0.1:PORT:\n%s", url, s.stdout.String())
	}
	if !strings.Contains(s.stdout.String(), "openapi   "+url+"/openapi.json\n") {
		t.Errorf("the banner's openapi line is not under %s:\n%s", url, s.stdout.String())
	}
	c, err := registry.NewClient(url, registry.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.ListToolsets(ctx, &gen.ListToolsetsPayload{})
	if err != nil {
		t.Fatalf("ListToolsets over HTTPS: %v", err)
	}
	if len(res.Toolsets) != 0 {
		t.Errorf("a new registry lists %d toolsets", len(res.Toolsets))
	}
	// A client that does not trust the certificate is refused by TLS.
	untrusting, err := registry.NewClient(url, registry.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := untrusting.ListToolsets(ctx, &gen.ListToolsetsPayload{}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client not trusting the certificate: %v, want a certificate error", err)
	}
	plainHTTPRefused(t, "http://"+strings.TrimPrefix(url, "https://")+"/v1/toolsets")
}

// TestServeMCPOverHTTPS: quiver serve with --tls-cert and --tls-key serves
// its MCP endpoint over HTTPS, and an SDK client trusting the certificate
// lists its tools.
func TestServeMCPOverHTTPS(t *testing.T) {
	cert, key, pool := selfSignedCert(t)
	s := startServing(t, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--tls-cert", cert, "--tls-key", key)
	url := mcpURL(t, s.stdout.String())
	if !strings.HasPrefix(url, "https://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("banner's MCP URL %q, want https://127.0.0.1:PORT/mcp:\n%s", url, s.stdout.String())
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	session := connectMCP(t, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc})
	if names := session.names(t); !slices.Contains(names, "search_tools") {
		t.Errorf("tools over HTTPS = %v, want search_tools among them", names)
	}
	if text, isErr := session.call(t, "search_tools", map[string]string{"query": "list the tables"}); isErr || !strings.Contains(text, `"name":"listTables"`) {
		t.Errorf("search over HTTPS = %s (error %v)", text, isErr)
	}
	_ = session.Close() // an open session would hold the stop back
	plainHTTPRefused(t, "http://"+strings.TrimPrefix(url, "https://"))
}

// plainHTTPRefused checks that a plain-HTTP request to an HTTPS port
// fails or gets 400, never the API's answer.
func plainHTTPRefused(t *testing.T, url string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		return
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("plain HTTP to %s: %d %s, want a failure or 400", url, resp.StatusCode, body)
	}
}

// selfSignedCert writes a self-signed ECDSA certificate for 127.0.0.1
// (and ::1, localhost) and its key to PEM files, and returns their paths
// and a pool trusting the certificate.
func selfSignedCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	cert, pool := registrytest.SelfSignedCert(t)
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pool
}
