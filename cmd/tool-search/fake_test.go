package main

import (
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// testKey is the API key the tests put in the environment.
const testKey = "test-key"

// newFakeProvider starts a local provider answering POSTs to path with
// bodies, in order, and checks when the test ends that every request
// carried the key from the environment.
func newFakeProvider(t *testing.T, path string, bodies ...string) *providerfake.Server {
	t.Helper()
	answers := make([]providerfake.Answer, len(bodies))
	for i, b := range bodies {
		answers[i] = providerfake.OK(b)
	}
	p := providerfake.New(t, path, answers...)
	t.Cleanup(func() {
		for i, r := range p.Requests() {
			if r.Header.Get("Authorization") != "Bearer "+testKey && r.Header.Get("X-Api-Key") != testKey {
				t.Errorf("request %d does not carry the key from the environment: %v", i+1, r.Header)
			}
		}
	})
	return p
}
