// Package streamtest reads model streams in tests: to their end, and by
// kind. The adapters' stream tests share it. It must not be imported by
// non-test code.
package streamtest

import (
	"errors"
	"io"

	"github.com/quiver-go/quiver/model"
)

// Drain reads st until io.EOF or an error, and returns the chunks received
// before it (ChunkDone included) with that error (nil at io.EOF).
func Drain(st model.Streamer) ([]model.Chunk, error) {
	var got []model.Chunk
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, c)
	}
}

// Kinds lists the chunks' kinds, in order.
func Kinds(chunks []model.Chunk) []model.ChunkKind {
	out := make([]model.ChunkKind, len(chunks))
	for i, c := range chunks {
		out[i] = c.Kind
	}
	return out
}
