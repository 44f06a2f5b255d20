package server_test

// Key rotation: Service.SetKeys swaps the keys for the next request,
// without touching connections, and never turns a keyless registry keyed
// or a keyed one keyless.

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry/server"
)

const (
	rotateKeyA = "rotate-key-a-0123456789"
	rotateKeyB = "rotate-key-b-0123456789"
)

func rotateKeys(t *testing.T, keys ...server.Key) *server.Keys {
	t.Helper()
	k, err := server.NewKeys(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSetKeysRefusesToSwitchBetweenKeylessAndKeyed: a keyless registry
// takes no keys and a keyed one cannot drop them; either refusal keeps
// the keys in force.
func TestSetKeysRefusesToSwitchBetweenKeylessAndKeyed(t *testing.T) {
	keyA := rotateKeys(t, server.Key{Name: "a", Key: rotateKeyA, Role: server.RoleConsumer})

	open := registrytest.Start(t, registrytest.Options{})
	if err := open.Service.SetKeys(keyA); !errors.Is(err, server.ErrKeylessRegistry) {
		t.Errorf("keyless → keyed: %v, want ErrKeylessRegistry", err)
	}
	if err := open.Service.SetKeys(nil); err != nil {
		t.Errorf("keyless → keyless: %v, want nil", err)
	}
	if status, _ := registrytest.KeyedGet(t, http.DefaultClient, open.URL+"/v1/toolsets", ""); status != http.StatusOK {
		t.Errorf("keyless registry after the refusal: %d without a key, want 200", status)
	}

	keyed := registrytest.Start(t, registrytest.Options{Keys: keyA})
	for name, k := range map[string]*server.Keys{"nil": nil, "empty": {}} {
		if err := keyed.Service.SetKeys(k); !errors.Is(err, server.ErrKeysRequired) {
			t.Errorf("keyed → %s keys: %v, want ErrKeysRequired", name, err)
		}
	}
	if status, _ := registrytest.KeyedGet(t, http.DefaultClient, keyed.URL+"/v1/toolsets", ""); status != http.StatusUnauthorized {
		t.Errorf("keyed registry after the refusal: %d without a key, want 401", status)
	}
	if status, _ := registrytest.KeyedGet(t, http.DefaultClient, keyed.URL+"/v1/toolsets", rotateKeyA); status != http.StatusOK {
		t.Errorf("keyed registry after the refusal: %d with key A, want 200", status)
	}
	for _, err := range []error{server.ErrKeylessRegistry, server.ErrKeysRequired} {
		if msg := err.Error(); len(msg) < 40 {
			t.Errorf("%q does not say why", msg)
		}
	}
}

// TestSetKeysTakesEffectOnTheNextRequest: after SetKeys the removed key
// is 401 and the added one 200 at once, over the connection the client
// already had; a long poll let in with the removed key completes.
func TestSetKeysTakesEffectOnTheNextRequest(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{Keys: rotateKeys(t, server.Key{Name: "a", Key: rotateKeyA, Role: server.RoleConsumer})})
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: 10 * time.Second}
	list := r.URL + "/v1/toolsets"
	if status, _ := registrytest.KeyedGet(t, c, list, rotateKeyA); status != http.StatusOK {
		t.Fatalf("key A before: %d", status)
	}
	if status, _ := registrytest.KeyedGet(t, c, list, rotateKeyB); status != http.StatusUnauthorized {
		t.Fatalf("key B before: %d", status)
	}
	// A long poll with key A, on a connection of its own, in flight
	// across the swap.
	polled := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, r.URL+"/v1/catalog/changes?wait_ms=1500", nil)
		req.Header.Set("Authorization", "Bearer "+rotateKeyA)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			polled <- -1
			return
		}
		resp.Body.Close()
		polled <- resp.StatusCode
	}()
	time.Sleep(200 * time.Millisecond)

	if err := r.Service.SetKeys(rotateKeys(t, server.Key{Name: "b", Key: rotateKeyB, Role: server.RoleConsumer})); err != nil {
		t.Fatal(err)
	}
	if status, reused := registrytest.KeyedGet(t, c, list, rotateKeyB); status != http.StatusOK || !reused {
		t.Errorf("key B after: %d (connection reused %v), want 200 on the same connection", status, reused)
	}
	if status, reused := registrytest.KeyedGet(t, c, list, rotateKeyA); status != http.StatusUnauthorized || !reused {
		t.Errorf("key A after: %d (connection reused %v), want 401 on the same connection", status, reused)
	}
	select {
	case status := <-polled:
		if status != http.StatusOK {
			t.Errorf("the long poll let in with key A before the swap: %d, want 200", status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll did not end")
	}
}
