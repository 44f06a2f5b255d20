package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// BlobStore keeps the payloads too large to travel inline in Temporal's
// history ([NewLargePayloadCodec]). Keys are content digests: a Put of a
// key stored already may be skipped. A blob must be kept at least as long
// as the namespace keeps the histories that name it.
type BlobStore interface {
	// Put stores data under key.
	Put(ctx context.Context, key string, data []byte) error
	// Get returns what key holds, wrapping [ErrBlobNotFound] when nothing.
	Get(ctx context.Context, key string) ([]byte, error)
}

// ErrBlobNotFound reports a reference to a blob the store does not hold
// (expired, or written to another store).
var ErrBlobNotFound = errors.New("temporal: blob not found")

// DefaultLargePayloadThreshold is the size above which
// [NewLargePayloadCodec] stores a payload by reference when given 0: a
// quarter of Temporal's default 2 MiB limit on one payload, well under the
// 512 KiB at which the server starts to warn.
const DefaultLargePayloadThreshold = 256 << 10

// blobTimeout bounds one store operation of the codec (the SDK's codec
// interface carries no context).
const blobTimeout = 30 * time.Second

// encodingBlobRef marks a payload that is a reference to a stored blob.
const encodingBlobRef = "quiver/blob-ref"

// largePayloadCodec is the PayloadCodec of NewLargePayloadCodec.
type largePayloadCodec struct {
	store     BlobStore
	threshold int
}

// NewLargePayloadCodec returns a payload codec that puts every payload
// larger than threshold bytes (serialized) in store and sends, in its
// place, a reference to it (its SHA-256 digest): a run's state — a long
// transcript — never travels inline, however large. Install it on the
// client every worker and starter uses, with any encryption codec after it
// so that the store, too, holds only ciphertext:
//
//	client.Options{DataConverter: converter.NewCodecDataConverter(
//		converter.GetDefaultDataConverter(),
//		temporal.NewLargePayloadCodec(store, 0), encryption)}
//
// threshold 0 means [DefaultLargePayloadThreshold].
func NewLargePayloadCodec(store BlobStore, threshold int) converter.PayloadCodec {
	if threshold <= 0 {
		threshold = DefaultLargePayloadThreshold
	}
	return &largePayloadCodec{store: store, threshold: threshold}
}

// Encode implements converter.PayloadCodec.
func (c *largePayloadCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if proto.Size(p) <= c.threshold {
			out[i] = p
			continue
		}
		data, err := proto.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("temporal: large payload: %w", err)
		}
		sum := sha256.Sum256(data)
		key := "sha256:" + hex.EncodeToString(sum[:])
		ctx, cancel := context.WithTimeout(context.Background(), blobTimeout)
		err = c.store.Put(ctx, key, data)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("temporal: store a payload of %d bytes by reference: %w", len(data), err)
		}
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(encodingBlobRef)}, Data: []byte(key)}
	}
	return out, nil
}

// Decode implements converter.PayloadCodec.
func (c *largePayloadCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != encodingBlobRef {
			out[i] = p
			continue
		}
		key := string(p.GetData())
		ctx, cancel := context.WithTimeout(context.Background(), blobTimeout)
		data, err := c.store.Get(ctx, key)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("temporal: read the payload stored as %s: %w", key, err)
		}
		if sum := sha256.Sum256(data); "sha256:"+hex.EncodeToString(sum[:]) != key {
			return nil, fmt.Errorf("temporal: the payload stored as %s does not match its digest: the store holds other data", key)
		}
		var inner commonpb.Payload
		if err := proto.Unmarshal(data, &inner); err != nil {
			return nil, fmt.Errorf("temporal: decode the payload stored as %s: %w", key, err)
		}
		out[i] = &inner
	}
	return out, nil
}

// MemoryBlobs is a BlobStore in this process's memory: for tests and for
// a worker and its starters in one process. Its blobs die with it.
type MemoryBlobs struct {
	mu    sync.RWMutex
	blobs map[string][]byte
}

// NewMemoryBlobs returns an empty in-memory blob store.
func NewMemoryBlobs() *MemoryBlobs { return &MemoryBlobs{blobs: map[string][]byte{}} }

// Put implements BlobStore.
func (m *MemoryBlobs) Put(_ context.Context, key string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.blobs[key] = append([]byte(nil), data...)
	return nil
}

// Get implements BlobStore.
func (m *MemoryBlobs) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	b, ok := m.blobs[key]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrBlobNotFound, key)
	}
	return append([]byte(nil), b...), nil
}

// Len is the number of blobs held.
func (m *MemoryBlobs) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.blobs)
}
