package server

import (
	"context"
	"sync"
	"time"
)

// queueLengths caches how many calls wait on the bus per token, read at
// most every queueLengthAge: the bound on waiting calls is a guard against
// a flood, and asking a shared bus for each call would cost a round trip.
type queueLengths struct {
	mu   sync.Mutex
	seen map[string]queueLength
}

type queueLength struct {
	n  int
	at time.Time
}

const queueLengthAge = 100 * time.Millisecond

// waiting returns the length of token's queue: with cache, the cached
// one, read again when older than queueLengthAge, plus the calls this
// node offered since (it may undercount by the calls other nodes offered
// within queueLengthAge).
func (q *queueLengths) waiting(ctx context.Context, bus Bus, token string, cache bool) (int, error) {
	if !cache {
		return bus.Waiting(ctx, token)
	}
	q.mu.Lock()
	l, ok := q.seen[token]
	q.mu.Unlock()
	if ok && time.Since(l.at) < queueLengthAge {
		return l.n, nil
	}
	n, err := bus.Waiting(ctx, token)
	if err != nil {
		return 0, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.seen == nil {
		q.seen = map[string]queueLength{}
	}
	q.seen[token] = queueLength{n: n, at: time.Now()}
	return n, nil
}

// offered counts a call this node offered in token's cached length.
func (q *queueLengths) offered(token string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if l, ok := q.seen[token]; ok {
		l.n++
		q.seen[token] = l
	}
}
