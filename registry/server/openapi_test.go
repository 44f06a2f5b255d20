package server_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry/server"
)

// The served document is the one goa gen wrote (go generate ./registry/...
// copies it beside the server to embed it).
func TestOpenAPIIsTheGeneratedDocument(t *testing.T) {
	gen, err := os.ReadFile("../gen/http/openapi3.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gen, server.OpenAPI()) {
		t.Fatal("registry/server/openapi3.json differs from registry/gen/http/openapi3.json: run go generate ./registry/...")
	}
	r := registrytest.Start(t, registrytest.Options{})
	resp, err := http.Get(r.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, gen) || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /openapi.json: %s, %d bytes", resp.Status, len(body))
	}
}
