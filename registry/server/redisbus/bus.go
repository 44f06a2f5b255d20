package redisbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/registry/server"
)

// group is the consumer group every call stream has.
const group = "providers"

// DefaultClaimIdle is how long a taken call may stay unacknowledged before
// another lease claims it (its node died between taking and publishing).
const DefaultClaimIdle = 15 * time.Second

// Bus implements server.Bus on Redis.
type Bus struct {
	rdb       *redis.Client
	prefix    string
	claimIdle time.Duration

	// groups remembers the streams whose group exists.
	groups sync.Map
	// entries maps a taken call to its stream entry, per stream, for Ack.
	mu        sync.Mutex
	entries   map[string]map[string]string
	lastClaim map[string]time.Time

	pubsub *redis.PubSub
	events chan server.Event
	done   chan struct{}
}

var _ server.Bus = (*Bus)(nil)

// Option configures New.
type Option func(*Bus)

// WithPrefix puts every key and channel under prefix (default
// "quiver:registry:", the Redis store's default: nodes sharing a store
// share a bus with the same prefix).
func WithPrefix(prefix string) Option { return func(b *Bus) { b.prefix = prefix } }

// WithClaimIdle sets how long a taken, unacknowledged call waits before
// another lease claims it (DefaultClaimIdle).
func WithClaimIdle(d time.Duration) Option { return func(b *Bus) { b.claimIdle = d } }

// New connects to the Redis at url (redis://host:port/db). The bus opens
// its own connections: every provider stream held by the node keeps one
// blocked reading its queue.
func New(ctx context.Context, url string, opts ...Option) (*Bus, error) {
	o, err := redisconn.ClientOptions(url)
	if err != nil {
		return nil, fmt.Errorf("redisbus: Redis URL %w", err)
	}
	o.PoolSize = max(o.PoolSize, 256)
	b := &Bus{
		rdb: redis.NewClient(o), prefix: "quiver:registry:", claimIdle: DefaultClaimIdle,
		entries: map[string]map[string]string{}, lastClaim: map[string]time.Time{},
		events: make(chan server.Event, 256), done: make(chan struct{}),
	}
	for _, opt := range opts {
		opt(b)
	}
	if err := b.rdb.Ping(ctx).Err(); err != nil {
		b.rdb.Close()
		return nil, fmt.Errorf("redisbus: %s: %w", url, err)
	}
	b.pubsub = b.rdb.Subscribe(ctx, b.channel())
	if _, err := b.pubsub.Receive(ctx); err != nil {
		b.rdb.Close()
		return nil, fmt.Errorf("redisbus: subscribe: %w", err)
	}
	go b.listen()
	return b, nil
}

func (b *Bus) stream(token string) string { return b.prefix + "q:" + token }
func (b *Bus) channel() string            { return b.prefix + "events" }

// ensureGroup creates the stream's consumer group once, reading from the
// stream's start so that no call offered before it is missed.
func (b *Bus) ensureGroup(ctx context.Context, key string) error {
	if _, ok := b.groups.Load(key); ok {
		return nil
	}
	err := b.rdb.XGroupCreateMkStream(ctx, key, group, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("redisbus: create group of %s: %w", key, err)
	}
	b.groups.Store(key, true)
	return nil
}

// Offer implements server.Bus.
func (b *Bus) Offer(ctx context.Context, token string, callIDs ...string) error {
	key := b.stream(token)
	if err := b.ensureGroup(ctx, key); err != nil {
		return err
	}
	_, err := b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, id := range callIDs {
			p.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []string{"call", id}})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisbus: offer: %w", err)
	}
	return nil
}

// Take implements server.Bus: calls idle in another consumer's hands for
// ClaimIdle first (now and then), then new ones, waiting at most wait.
func (b *Bus) Take(ctx context.Context, token, leaseID string, n int, wait time.Duration) ([]string, error) {
	key := b.stream(token)
	if err := b.ensureGroup(ctx, key); err != nil {
		return nil, err
	}
	if ids, err := b.claim(ctx, key, leaseID, n); err != nil || len(ids) > 0 {
		return ids, err
	}
	res, err := b.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: group, Consumer: leaseID, Streams: []string{key, ">"}, Count: int64(n), Block: wait,
	}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil
	case err != nil && strings.HasPrefix(err.Error(), "NOGROUP"):
		// The stream was lost (Redis restarted without it): make it again.
		b.groups.Delete(key)
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("redisbus: take: %w", err)
	}
	var msgs []redis.XMessage
	for _, s := range res {
		msgs = append(msgs, s.Messages...)
	}
	return b.taken(key, msgs), nil
}

// claim claims, at most every ClaimIdle/2 per stream, the calls taken by a
// consumer that has not acknowledged them for ClaimIdle.
func (b *Bus) claim(ctx context.Context, key, leaseID string, n int) ([]string, error) {
	b.mu.Lock()
	due := time.Since(b.lastClaim[key]) > b.claimIdle/2
	if due {
		b.lastClaim[key] = time.Now()
	}
	b.mu.Unlock()
	if !due {
		return nil, nil
	}
	msgs, _, err := b.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
		Stream: key, Group: group, Consumer: leaseID, MinIdle: b.claimIdle, Start: "0-0", Count: int64(n),
	}).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redisbus: claim: %w", err)
	}
	return b.taken(key, msgs), nil
}

// taken remembers the entries of taken calls for Ack.
func (b *Bus) taken(key string, msgs []redis.XMessage) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.entries[key]
	if m == nil {
		m = map[string]string{}
		b.entries[key] = m
	}
	ids := make([]string, 0, len(msgs))
	for _, msg := range msgs {
		id, _ := msg.Values["call"].(string)
		if id == "" {
			continue
		}
		m[id] = msg.ID
		ids = append(ids, id)
	}
	return ids
}

// Ack implements server.Bus: the entries are acknowledged and deleted.
func (b *Bus) Ack(ctx context.Context, token string, callIDs ...string) error {
	key := b.stream(token)
	b.mu.Lock()
	var entries []string
	for _, id := range callIDs {
		if e, ok := b.entries[key][id]; ok {
			entries = append(entries, e)
			delete(b.entries[key], id)
		}
	}
	b.mu.Unlock()
	if len(entries) == 0 {
		return nil
	}
	_, err := b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.XAck(ctx, key, group, entries...)
		p.XDel(ctx, key, entries...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisbus: ack: %w", err)
	}
	return nil
}

// Waiting implements server.Bus: the stream's length (calls queued or
// taken and not acknowledged yet).
func (b *Bus) Waiting(ctx context.Context, token string) (int, error) {
	n, err := b.rdb.XLen(ctx, b.stream(token)).Result()
	if err != nil {
		return 0, fmt.Errorf("redisbus: queue length: %w", err)
	}
	return int(n), nil
}

// Announce implements server.Bus.
func (b *Bus) Announce(ctx context.Context, e server.Event) error {
	raw, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := b.rdb.Publish(ctx, b.channel(), raw).Err(); err != nil {
		return fmt.Errorf("redisbus: announce: %w", err)
	}
	return nil
}

// Events implements server.Bus.
func (b *Bus) Events() <-chan server.Event { return b.events }

// listen decodes announcements until Close.
func (b *Bus) listen() {
	defer close(b.events)
	ch := b.pubsub.Channel()
	for {
		select {
		case <-b.done:
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			var e server.Event
			if json.Unmarshal([]byte(msg.Payload), &e) != nil {
				continue
			}
			select {
			case b.events <- e:
			case <-b.done:
				return
			}
		}
	}
}

// Close implements server.Bus.
func (b *Bus) Close() error {
	select {
	case <-b.done:
		return nil
	default:
		close(b.done)
	}
	err := b.pubsub.Close()
	return errors.Join(err, b.rdb.Close())
}
