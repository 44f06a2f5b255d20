package boltstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/storetest"
)

var ctx = context.Background()

// openTemp opens a fresh store file in t's temporary folder, closed at
// the end of t.
func openTemp(t *testing.T) (*boltstore.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, path
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) runtime.Store {
		s, _ := openTemp(t)
		return s
	})
}

// TestConformanceShared runs the two-stores suite on one *Store given
// twice: bbolt locks its file, so a second Store cannot open it (see
// TestSecondOpenFails); sharing the file means sharing the *Store, whose
// write transactions bbolt serializes.
func TestConformanceShared(t *testing.T) {
	storetest.RunShared(t, func(t *testing.T) (a, b runtime.Store) {
		s, _ := openTemp(t)
		return s, s
	})
}

// TestRunsOnTheStore runs whole runs on two runtimes sharing one *Store
// (see TestConformanceShared for why one).
func TestRunsOnTheStore(t *testing.T) {
	storetest.RunRuntime(t, func(t *testing.T) (a, b runtime.Store) {
		s, _ := openTemp(t)
		return s, s
	})
}

func TestSecondOpenFails(t *testing.T) {
	_, path := openTemp(t)
	_, err := boltstore.Open(path, boltstore.WithOpenTimeout(50*time.Millisecond))
	if !errors.Is(err, boltstore.ErrInUse) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another data folder") {
		t.Fatalf("second Open: %v, want ErrInUse naming %s and what to do", err, path)
	}
}

func TestOpenRefusesBadOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	for _, d := range []time.Duration{0, -time.Second} {
		if _, err := boltstore.Open(path, boltstore.WithOpenTimeout(d)); err == nil || !strings.Contains(err.Error(), "WithOpenTimeout") {
			t.Fatalf("Open with open timeout %v: %v, want a refusal naming WithOpenTimeout", d, err)
		}
	}
}

// TestOpenRefusesAnotherStoresFile: a file holding other buckets (the
// registry's registry.db, say) is not taken over.
func TestOpenRefusesAnotherStoresFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	writeRaw(t, path, []byte("leases"), []byte("l1"), []byte(`{}`))
	_, err := boltstore.Open(path)
	if err == nil || !strings.Contains(err.Error(), `bucket "leases"`) || !strings.Contains(err.Error(), "runs.db") {
		t.Fatalf("Open of another store's file: %v, want a refusal naming its bucket and runs.db", err)
	}
}

// TestOpenRefusesAnotherLayout: a file of a later layout is not misread.
func TestOpenRefusesAnotherLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	writeRaw(t, path, []byte("meta"), []byte("layout"), []byte("3"))
	if _, err := boltstore.Open(path); err == nil || !strings.Contains(err.Error(), `layout "3"`) {
		t.Fatalf("Open of a layout-3 file: %v, want a refusal naming its layout", err)
	}
	if got := readRaw(t, path, []byte("meta"), []byte("layout")); string(got) != "3" {
		t.Fatalf("the refused file's layout became %q", got)
	}
}

func TestOpenInAMissingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	_, err := boltstore.Open(filepath.Join(dir, boltstore.FileName))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "create the folder "+dir) {
		t.Fatalf("Open in a missing folder: %v, want ErrNotExist saying to create %s", err, dir)
	}
}

// TestRecordOfAnotherFormatIsRefused writes records of a format this
// release does not read straight into the file: every read refuses them
// with the runtime's error, and Take leaves the checkpoint for the release
// that wrote it.
func TestRecordOfAnotherFormatIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	future := []byte(`{"format":99,"run_id":"r1","pending":[],"suspended_at":"2026-12-01T12:00:00Z","hologram":true}`)
	writeRaw(t, path, []byte("checkpoints"), []byte("r1"), future)
	writeRaw(t, path, []byte("sessions"), []byte("s1"), []byte(`{"format":99,"version":3,"messages":[]}`))

	s, err = boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Take(ctx, "r1", time.Now()); !errors.Is(err, runtime.ErrUnknownRecordFormat) || !strings.Contains(err.Error(), `"r1"`) {
		t.Fatalf("Take of a format-99 checkpoint: %v, want ErrUnknownRecordFormat naming the run", err)
	}
	if _, err := s.List(ctx, runtime.SuspendedFilter{}); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
		t.Fatalf("List over a format-99 checkpoint: %v, want ErrUnknownRecordFormat", err)
	}
	if _, err := s.Expire(ctx, time.Now()); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
		t.Fatalf("Expire over a format-99 checkpoint: %v, want ErrUnknownRecordFormat", err)
	}
	if _, err := s.Load(ctx, "s1"); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
		t.Fatalf("Load of a format-99 session: %v, want ErrUnknownRecordFormat", err)
	}
	if _, err := s.Save(ctx, "s1", nil, 3); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
		t.Fatalf("Save over a format-99 session: %v, want ErrUnknownRecordFormat", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, path, []byte("checkpoints"), []byte("r1")); string(got) != string(future) {
		t.Fatalf("the refused checkpoint was changed or removed: %q", got)
	}
}

// TestReopenKeepsEverything: what one Open wrote, the next reads — a
// checkpoint is taken (exactly once) and a session loads at its version.
func TestReopenKeepsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), boltstore.FileName)
	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	c := runtime.Checkpoint{
		RunID: "r1", Agent: "desk", SessionID: "s1", Labels: map[string]string{"tenant": "acme"},
		Pending:     []runtime.PendingItem{{Kind: runtime.PendingConfirmation, CallID: "c1", Prompt: "Cancel order A-1?"}},
		SuspendedAt: at, ExpiresAt: at.Add(time.Hour), State: json.RawMessage(`{"step":3}`),
	}
	if err := s.Put(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, "s1", nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "r1", at); !errors.Is(err, boltstore.ErrClosed) {
		t.Fatalf("Take after Close: %v, want ErrClosed", err)
	}

	s, err = boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if sess, err := s.Load(ctx, "s1"); err != nil || sess.Version != 1 {
		t.Fatalf("Load after reopening = %+v, %v; want version 1", sess, err)
	}
	got, err := s.Take(ctx, "r1", at)
	if err != nil {
		t.Fatal(err)
	}
	if got.Agent != "desk" || got.Labels["tenant"] != "acme" || !got.ExpiresAt.Equal(c.ExpiresAt) ||
		string(got.State) != `{"step":3}` || len(got.Pending) != 1 || got.Pending[0].Prompt != "Cancel order A-1?" {
		t.Fatalf("Take after reopening = %+v, want %+v", got, c)
	}
	if _, err := s.Take(ctx, "r1", at); !errors.Is(err, runtime.ErrNotSuspended) {
		t.Fatalf("second Take after reopening: %v, want ErrNotSuspended", err)
	}
}

// writeRaw puts value under key in bucket of the bbolt file at path,
// bypassing the store.
func writeRaw(t *testing.T, path string, bucket, key, value []byte) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucket)
		if err != nil {
			return err
		}
		return b.Put(key, value)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readRaw reads the value under key in bucket, bypassing the store.
func readRaw(t *testing.T, path string, bucket, key []byte) []byte {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []byte
	err = db.View(func(tx *bbolt.Tx) error {
		out = append(out, tx.Bucket(bucket).Get(key)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
