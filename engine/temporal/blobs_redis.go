package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisBlobs is a BlobStore on Redis: every worker and starter of a
// deployment reads the blobs any of them wrote.
type RedisBlobs struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
}

// NewRedisBlobs returns a blob store on rdb, its keys under prefix (e.g.
// "quiver:blobs:"), each kept for ttl after its latest write (0: until
// deleted). The ttl must exceed the Temporal namespace's retention of
// closed workflows' histories, which may name a blob until then.
func NewRedisBlobs(rdb redis.UniversalClient, prefix string, ttl time.Duration) (*RedisBlobs, error) {
	if rdb == nil {
		return nil, errors.New("temporal: NewRedisBlobs: the Redis client is nil")
	}
	if ttl < 0 {
		return nil, fmt.Errorf("temporal: NewRedisBlobs: negative ttl %s: use 0 to keep blobs until deleted", ttl)
	}
	return &RedisBlobs{rdb: rdb, prefix: prefix, ttl: ttl}, nil
}

// Put implements BlobStore.
func (r *RedisBlobs) Put(ctx context.Context, key string, data []byte) error {
	if err := r.rdb.Set(ctx, r.prefix+key, data, r.ttl).Err(); err != nil {
		return fmt.Errorf("temporal: redis blobs: put %s: %w", key, err)
	}
	return nil
}

// Get implements BlobStore.
func (r *RedisBlobs) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := r.rdb.Get(ctx, r.prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%w: %s", ErrBlobNotFound, key)
	}
	if err != nil {
		return nil, fmt.Errorf("temporal: redis blobs: get %s: %w", key, err)
	}
	return b, nil
}
