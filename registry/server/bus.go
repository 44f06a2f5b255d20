package server

import (
	"context"
	"sync"
	"time"
)

// Bus connects the nodes of a registry that share one store: it carries
// the calls waiting for a provider to whichever node holds that provider's
// stream, and tells every node when calls settle and when the catalog or
// its leases change. NewLocalBus serves a registry of one node; a shared
// store needs a shared bus (registry/server/redisbus).
type Bus interface {
	// Offer queues accepted calls for the providers of token.
	Offer(ctx context.Context, token string, callIDs ...string) error
	// Take waits at most wait for calls queued for token and hands up to n
	// of them to leaseID. Every taken call is Acked once the node has
	// published it, found it settled, or offered it again.
	Take(ctx context.Context, token, leaseID string, n int, wait time.Duration) ([]string, error)
	// Ack drops taken calls.
	Ack(ctx context.Context, token string, callIDs ...string) error
	// Waiting is how many calls are queued for token.
	Waiting(ctx context.Context, token string) (int, error)
	// Announce tells the other nodes of an event.
	Announce(ctx context.Context, e Event) error
	// Events delivers the other nodes' announcements; nil for a bus that
	// serves one node.
	Events() <-chan Event
	// Close stops the bus.
	Close() error
}

// Event is what a node announces.
type Event struct {
	// Settled are calls that got their outcome.
	Settled []string `json:"settled,omitempty"`
	// Changed says registrations or leases changed: read the catalog again.
	Changed bool `json:"changed,omitempty"`
}

// NewLocalBus returns the bus of a registry of one node: queues in memory.
// The store keeps every accepted call, so a restarted node offers them
// again (Service does at start).
func NewLocalBus() Bus {
	return &localBus{queues: map[string][]string{}, offered: map[string]chan struct{}{}}
}

type localBus struct {
	mu     sync.Mutex
	queues map[string][]string
	// offered is closed and replaced when calls are offered for a token.
	offered map[string]chan struct{}
}

func (b *localBus) Offer(_ context.Context, token string, callIDs ...string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queues[token] = append(b.queues[token], callIDs...)
	if ch, ok := b.offered[token]; ok {
		close(ch)
		delete(b.offered, token)
	}
	return nil
}

func (b *localBus) Take(ctx context.Context, token, _ string, n int, wait time.Duration) ([]string, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		b.mu.Lock()
		if q := b.queues[token]; len(q) > 0 {
			k := min(n, len(q))
			out := append([]string(nil), q[:k]...)
			if k == len(q) {
				delete(b.queues, token)
			} else {
				b.queues[token] = q[k:]
			}
			b.mu.Unlock()
			return out, nil
		}
		ch, ok := b.offered[token]
		if !ok {
			ch = make(chan struct{})
			b.offered[token] = ch
		}
		b.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (b *localBus) Ack(context.Context, string, ...string) error { return nil }

func (b *localBus) Waiting(_ context.Context, token string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queues[token]), nil
}

func (b *localBus) Announce(context.Context, Event) error { return nil }
func (b *localBus) Events() <-chan Event                  { return nil }
func (b *localBus) Close() error                          { return nil }
