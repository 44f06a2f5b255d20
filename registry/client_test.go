package registry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

func TestNewClientRefusesWhatIsNotABaseURL(t *testing.T) {
	for _, u := range []string{"", "registry.example", "ftp://r.example", "http://user:pw@r.example", "http://r.example/?q=1", "http://r.example/#x"} {
		if _, err := registry.NewClient(u); err == nil {
			t.Errorf("NewClient(%q) accepted", u)
		}
	}
	if _, err := registry.NewClient("http://r.example", registry.WithAPIKey("has space")); err == nil {
		t.Error("a key with a space was accepted")
	}
}

func TestClientSendsItsKeyUnderTheBasePath(t *testing.T) {
	var path, auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, auth = r.URL.Path, r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"0"`)
		_, _ = w.Write([]byte(`{"catalog_revision":0,"toolsets":[]}`))
	}))
	defer srv.Close()
	c, err := registry.NewClient(srv.URL+"/tools/", registry.WithAPIKey("secret-key-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResolveRegistry(context.Background(), &gen.ResolveRegistryPayload{}); err != nil {
		t.Fatal(err)
	}
	if path != "/tools/v1/resolve" || !strings.HasSuffix(auth, "secret-key-0123456789") {
		t.Fatalf("path %q, authorization %q", path, auth)
	}
}
