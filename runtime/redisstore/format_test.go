package redisstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

// TestUnknownRecordFormatIsRefused writes records of another format into
// Redis, as a newer release would, and checks that every method refuses
// them, wrapping runtime.ErrUnknownRecordFormat, and leaves them as they
// are.
func TestUnknownRecordFormatIsRefused(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	c := srv.Client(t)
	ctx := t.Context()
	p := redistest.NewPrefix()
	s := open(t, srv, redisstore.WithPrefix(p))
	const newer = `{"format":2,"version":1,"messages":[],"added":"by a newer release"}`

	t.Run("session whose record is in another format", func(t *testing.T) {
		c.HSet(ctx, p+"session:in-record", "format", "1", "version", "1", "record", newer)
		if _, err := s.Load(ctx, "in-record"); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
			t.Fatalf("Load: %v, want ErrUnknownRecordFormat", err)
		}
	})
	t.Run("session whose hash says another format", func(t *testing.T) {
		key := p + "session:in-hash"
		c.HSet(ctx, key, "format", "2", "version", "1", "record", newer)
		if _, err := s.Load(ctx, "in-hash"); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
			t.Fatalf("Load: %v, want ErrUnknownRecordFormat", err)
		}
		for _, v := range []int64{0, 1} {
			if _, err := s.Save(ctx, "in-hash", []model.Message{model.UserMessage("x")}, v); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
				t.Fatalf("Save over version %d: %v, want ErrUnknownRecordFormat", v, err)
			}
		}
		if got, _ := c.HGet(ctx, key, "record").Result(); got != newer {
			t.Fatalf("a refused Save changed the record: %s", got)
		}
	})
	t.Run("checkpoint whose hash says another format", func(t *testing.T) {
		key := p + "checkpoint:newer"
		rec := `{"format":2,"run_id":"newer","agent":"desk"}`
		c.HSet(ctx, key, "format", "2", "record", rec, "expires", "")
		c.ZAdd(ctx, p+"suspended", redis.Z{Member: "newer"})
		// Expired long ago: Expire must leave it all the same.
		c.ZAdd(ctx, p+"expiry", redis.Z{Member: "100000000000000000000:newer"})
		if _, err := s.List(ctx, runtime.SuspendedFilter{}); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
			t.Fatalf("List: %v, want ErrUnknownRecordFormat", err)
		}
		if _, err := s.Take(ctx, "newer", time.Now()); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
			t.Fatalf("Take: %v, want ErrUnknownRecordFormat", err)
		}
		if got, err := s.Expire(ctx, time.Now()); err != nil || len(got) != 0 {
			t.Fatalf("Expire = %+v, %v; want nothing (the record is another release's)", got, err)
		}
		if got, _ := c.HGet(ctx, key, "record").Result(); got != rec {
			t.Fatalf("the refused checkpoint was removed or changed: %q", got)
		}
	})
	t.Run("checkpoint whose record is in another format", func(t *testing.T) {
		c.HSet(ctx, p+"checkpoint:inrec", "format", "1", "record", `{"format":2,"run_id":"inrec"}`, "expires", "")
		if _, err := s.Take(ctx, "inrec", time.Now()); !errors.Is(err, runtime.ErrUnknownRecordFormat) {
			t.Fatalf("Take: %v, want ErrUnknownRecordFormat", err)
		}
	})
}

// TestLayoutOfAnotherRelease: Open refuses a prefix whose key layout is
// not this build's, and says so.
func TestLayoutOfAnotherRelease(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	p := redistest.NewPrefix()
	srv.Client(t).Set(t.Context(), p+"format", "2", 0)
	if s, err := redisstore.Open(t.Context(), srv.URL(), redisstore.WithPrefix(p)); err == nil {
		s.Close()
		t.Fatal("Open accepted a prefix of layout 2")
	}
}
