package redisconn_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/internal/redistest"
)

var errClosed = errors.New("test: closed")

// A new prefix gets the layout, a prefix of another layout is refused
// with the advice, Close closes once and later calls fail with ErrClosed.
func TestOpenChecksTheLayoutAndClosesOnce(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	ctx := context.Background()
	cfg := redisconn.Config{Package: "test", ErrClosed: errClosed, URL: srv.URL(), Prefix: "p1:", Layout: "1", LayoutAdvice: ": use another prefix"}
	c, err := redisconn.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.C.Get(ctx, "p1:format").Result(); got != "1" {
		t.Fatalf("layout stored as %q", got)
	}
	cfg.Layout = "2"
	if _, err := redisconn.Open(ctx, cfg); err == nil || !strings.Contains(err.Error(), `holds key layout "1", this build reads layout 2: use another prefix`) {
		t.Fatalf("another layout: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := c.Usable(ctx); !errors.Is(err, errClosed) {
		t.Fatalf("Usable after Close: %v", err)
	}
}

func TestClientOptionsHideThePassword(t *testing.T) {
	_, err := redisconn.ClientOptions("redis://user:s3cret@127.0.0.1:6379/notadb")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("err = %v: want an error without the password", err)
	}
	o, err := redisconn.ClientOptions("redis://127.0.0.1:6379/2")
	if err != nil || o.DB != 2 || o.MaintNotificationsConfig == nil {
		t.Fatalf("%+v %v", o, err)
	}
}
