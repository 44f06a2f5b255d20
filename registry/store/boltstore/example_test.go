package boltstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/store/boltstore"
)

// A provider registers, a call is accepted and handed to its lease in one
// durable write, and the provider's outcome settles it.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "registry")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := boltstore.Open(filepath.Join(dir, "registry.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	reg, err := s.Register(ctx, store.RegisterInput{
		Registration: store.Registration{Toolset: "weather", Revision: "1", Fingerprint: "fp1", Token: "tok1", Tools: []string{"forecast"}},
		Provider:     "weather-1",
		MaxInFlight:  8,
		TTL:          30 * time.Second,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("lease", reg.Lease.State, "catalog revision", reg.Effects.Revision)

	call := store.Call{ID: "call-1", Toolset: "weather", Tool: "forecast", Token: "tok1",
		Payload: json.RawMessage(`{"city":"Paris"}`), Digest: "sha256:…"}
	rec, created, err := s.AcceptCall(ctx, call, reg.Lease.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("call", rec.State, "created", created)

	rec, err = s.SettleCall(ctx, store.Settlement{CallID: "call-1", LeaseID: reg.Lease.ID,
		Outcome: store.OutcomeOK, Result: json.RawMessage(`{"celsius":21}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("call", rec.State, rec.Outcome, string(rec.Result))
	// Output:
	// lease active catalog revision 1
	// call published created true
	// call settled ok {"celsius":21}
}
