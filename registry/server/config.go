package server

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// Config configures a registry server. Zero fields take the defaults below.
type Config struct {
	// Store keeps the registry's state; required.
	Store store.Store
	// Bus connects the nodes sharing Store; nil for a registry of one node
	// (NewLocalBus).
	Bus Bus
	// Keys maps API keys to roles; nil lets every request through as admin
	// (for a registry on a loopback address only: the command refuses
	// anything else). They are the keys at start: Service.SetKeys replaces
	// them while the registry serves, so the service checks requests
	// against its current keys, never against this field.
	Keys *Keys
	// Logger receives one line per provider event; slog.Default() when nil.
	Logger *slog.Logger
	// AuditLog receives one line per write that passed the front door
	// (see audit.go: key name, role, operation, toolset, tool, call, lease,
	// result — never payloads, results or keys); Logger when nil.
	AuditLog *slog.Logger
	// MaxBodyBytes bounds the body of a registration or a posted result
	// (413 above it). Default 4 MiB.
	MaxBodyBytes int64
	// MaxPayloadBytes bounds a call's payload, the arguments of one tool
	// call (a call's body may hold 64 KiB more for its envelope); a larger
	// payload is refused as validation_error, or 413 when the body is over
	// the bound. Default 2 MiB: twice what the runtime lets a model write
	// for one call, leaving room for injected fields.
	MaxPayloadBytes int64
	// BodyTimeout bounds how long a request's body may take to arrive,
	// from the request's headers on (408 after it). It bounds the body
	// only: provider streams and calls waiting for their outcome last
	// longer. Default 30s.
	BodyTimeout time.Duration
	// MaxReadingBodies bounds how many request bodies are read at once;
	// a request arriving when as many are being read is answered 429
	// overloaded with Retry-After. Default 64.
	MaxReadingBodies int
	// LeaseTTL is how long a lease lasts without renewal. Default 15s.
	LeaseTTL time.Duration
	// Retention is how long settled call records are kept, so that a retry
	// returns the recorded outcome. Default 24h.
	Retention time.Duration
	// ResultRetention is how long a settled call keeps its result and
	// error message, at most Retention (the default). After it the record
	// stays until Retention ends, so a retry is still matched and never
	// runs the call again, but it reads result_expired instead of the
	// result.
	ResultRetention time.Duration
	// ForgetPayloads keeps only the digest of a settled call's payload:
	// the payload is forgotten at the first maintenance pass after the call
	// settles (within a second), so that arguments do not sit in the store
	// for the whole Retention. A retry is still matched by the digest.
	ForgetPayloads bool
	// MaxQueue bounds the calls waiting for a provider per toolset;
	// further calls are refused as overloaded. Default 10000.
	MaxQueue int
	// MaxCallsPerKey bounds the calls one key (by name; every caller of a
	// keyless registry is one) may have open at this node, queued or
	// running: a call counts from its admission until it settles, even
	// when its caller stopped waiting. A call beyond it is refused at once
	// as key_limit (429, temporary) and nothing is recorded, so it may be
	// retried with the same call id. The count is per node, not shared
	// through the store. Default DefaultMaxCallsPerKey; negative: no limit.
	MaxCallsPerKey int
	// PublishedGrace is how long after its deadline a published call with
	// no outcome waits for its provider before it settles as
	// outcome_unknown. Default 1m.
	PublishedGrace time.Duration
	// PingInterval is how often an idle provider stream carries a ping
	// frame. Default 15s.
	PingInterval time.Duration

	// keys holds the service's current keys, Keys at start; withDefaults
	// creates it, so that the copies of a service's Config share it.
	keys *keyRing
	// limiter counts the calls each key has open (MaxCallsPerKey).
	limiter *keyLimiter
}

// Defaults.
const (
	DefaultMaxBodyBytes   = 4 << 20
	DefaultMaxPayload     = 2 << 20
	DefaultBodyTimeout    = 30 * time.Second
	DefaultMaxReading     = 64
	DefaultLeaseTTL       = 15 * time.Second
	DefaultRetention      = 24 * time.Hour
	DefaultMaxQueue       = 10000
	DefaultPublishedGrace = time.Minute
	DefaultPingInterval   = 15 * time.Second
)

func (c Config) withDefaults() (Config, error) {
	if c.Store == nil {
		return c, errors.New("registry: config has no store")
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.AuditLog == nil {
		c.AuditLog = c.Logger
	}
	c.keys = newKeyRing(c.Keys)
	set := func(d *time.Duration, def time.Duration, name string) error {
		switch {
		case *d == 0:
			*d = def
		case *d < 0:
			return fmt.Errorf("registry: %s is negative (%s)", name, *d)
		}
		return nil
	}
	if err := errors.Join(
		set(&c.LeaseTTL, DefaultLeaseTTL, "LeaseTTL"),
		set(&c.Retention, DefaultRetention, "Retention"),
		set(&c.PublishedGrace, DefaultPublishedGrace, "PublishedGrace"),
		set(&c.PingInterval, DefaultPingInterval, "PingInterval"),
		set(&c.BodyTimeout, DefaultBodyTimeout, "BodyTimeout"),
	); err != nil {
		return c, err
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch {
	case c.ResultRetention == 0:
		c.ResultRetention = c.Retention
	case c.ResultRetention < 0:
		return c, fmt.Errorf("registry: ResultRetention is negative (%s)", c.ResultRetention)
	}
	if c.ResultRetention > c.Retention {
		return c, fmt.Errorf("registry: ResultRetention (%s) is longer than Retention (%s): a result cannot outlive its record", c.ResultRetention, c.Retention)
	}
	if c.MaxPayloadBytes == 0 {
		c.MaxPayloadBytes = DefaultMaxPayload
	}
	if c.MaxQueue == 0 {
		c.MaxQueue = DefaultMaxQueue
	}
	if c.MaxCallsPerKey == 0 {
		c.MaxCallsPerKey = DefaultMaxCallsPerKey
	}
	c.limiter = newKeyLimiter(c.MaxCallsPerKey)
	if c.MaxReadingBodies == 0 {
		c.MaxReadingBodies = DefaultMaxReading
	}
	if c.MaxBodyBytes < 0 || c.MaxPayloadBytes < 0 || c.MaxQueue < 0 || c.MaxReadingBodies < 0 {
		return c, errors.New("registry: MaxBodyBytes, MaxPayloadBytes, MaxQueue and MaxReadingBodies must be positive")
	}
	return c, nil
}
