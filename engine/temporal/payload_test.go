package temporal_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"
)

// sealCodec encrypts every payload with AES-GCM: what an application
// plugs in to keep its data from Temporal's storage.
type sealCodec struct{ aead cipher.AEAD }

func newSealCodec(t testing.TB) *sealCodec {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return &sealCodec{aead: aead}
}

func (c *sealCodec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, err
		}
		nonce := make([]byte, c.aead.NonceSize())
		_, _ = rand.Read(nonce)
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte("binary/sealed")}, Data: c.aead.Seal(nonce, nonce, plain, nil)}
	}
	return out, nil
}

func (c *sealCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if string(p.Metadata[converter.MetadataEncoding]) != "binary/sealed" {
			out[i] = p
			continue
		}
		n := c.aead.NonceSize()
		plain, err := c.aead.Open(nil, p.Data[:n], p.Data[n:], nil)
		if err != nil {
			return nil, err
		}
		var inner commonpb.Payload
		if err := proto.Unmarshal(plain, &inner); err != nil {
			return nil, err
		}
		out[i] = &inner
	}
	return out, nil
}

// A run whose state is far over Temporal's 2 MiB payload limit — a user
// message of 3 MiB — completes when the client stores large payloads by
// reference (here in a real Redis), and what Temporal stores is sealed by
// the application's codec: no payload of the history is large, none holds
// the run's text in clear, and the blobs hold ciphertext only. Without the
// codec the same run cannot start.
func TestLargeStateTravelsByReferenceAndSealed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t, redistest.Options{})
	blobs, err := temporal.NewRedisBlobs(srv.Client(t), redistest.NewPrefix(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), temporal.NewLargePayloadCodec(blobs, 0), newSealCodec(t))
	c := newClient(client.Options{Logger: quiet, DataConverter: dc})
	huge := "order A-1 " + strings.Repeat("lorem ipsum ", 3<<20/12)

	e, err := temporal.NewWorker(c, newQueue(t), temporal.Options{DataConverter: dc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	rec := &recorder{Engine: e}
	rt := newDesk(t, rec, runtime.NewMemoryStore(), &orders{}, runtime.RunPolicy{},
		scripted.Call("getOrder", `{"order_id":"A-1"}`), scripted.Reply("Shipped."))
	out, err := rt.Run(ctx, "desk", ask(huge))
	if err != nil {
		t.Fatal(err)
	}
	if out.Final == nil || out.Final.Text != "Shipped." {
		t.Fatalf("run ended with %+v", out.Final)
	}
	for id, h := range rec.histories(t) {
		for _, ev := range h.Events {
			raw, _ := proto.Marshal(ev)
			if len(raw) > temporal.DefaultLargePayloadThreshold {
				t.Errorf("workflow %s: history event %d (%s) is %d bytes", id, ev.EventId, ev.EventType, len(raw))
			}
			if bytes.Contains(raw, []byte("lorem ipsum")) || bytes.Contains(raw, []byte("A-1")) {
				t.Errorf("workflow %s: history event %d (%s) holds the run's text in clear", id, ev.EventId, ev.EventType)
			}
		}
		if err := rec.ReplayHistory(quiet, h); err != nil {
			t.Errorf("replay of %s: %v", id, err)
		}
	}
	keys, err := srv.Client(t).Keys(ctx, "*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("blobs stored: %v, %v", keys, err)
	}
	for _, k := range keys {
		b, _ := srv.Client(t).Get(ctx, k).Bytes()
		if bytes.Contains(b, []byte("lorem ipsum")) {
			t.Fatalf("blob %s holds the run's text in clear", k)
		}
	}

	plain := newDesk(t, newWorker(t, newQueue(t), temporal.Options{}), runtime.NewMemoryStore(), &orders{}, runtime.RunPolicy{}, scripted.Reply("Shipped."))
	if _, err := plain.Run(ctx, "desk", ask(huge)); err == nil || !strings.Contains(strings.ToLower(err.Error()), "size") {
		t.Fatalf("a 3 MiB run state inline: %v; want Temporal's size limit to refuse it (the test no longer shows the codec is needed)", err)
	}
}

// A reference to a blob the store lost fails clearly.
func TestLargePayloadCodecReportsALostBlob(t *testing.T) {
	codec := temporal.NewLargePayloadCodec(temporal.NewMemoryBlobs(), 16)
	big := &commonpb.Payload{Data: bytes.Repeat([]byte("x"), 64)}
	enc, err := codec.Encode([]*commonpb.Payload{big, {Data: []byte("small")}})
	if err != nil {
		t.Fatal(err)
	}
	if string(enc[1].Data) != "small" || len(enc[0].Data) > 80 {
		t.Fatalf("encoded %v", enc)
	}
	other := temporal.NewLargePayloadCodec(temporal.NewMemoryBlobs(), 16)
	if _, err := other.Decode(enc); !errors.Is(err, temporal.ErrBlobNotFound) {
		t.Fatalf("decode with another store: %v, want ErrBlobNotFound", err)
	}
	dec, err := codec.Decode(enc)
	if err != nil || !proto.Equal(dec[0], big) {
		t.Fatalf("round trip: %v, %v", dec, err)
	}
}
