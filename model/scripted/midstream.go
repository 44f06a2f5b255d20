package scripted

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/model"
)

// FailMidStream returns a step whose stream delivers text (in word
// pieces, as model.ChunkText) and then fails: Recv returns an error
// wrapping err, so errors.Is(err, model.ErrStreamInterrupted) holds when
// err is that — a connection dropped in the middle of an answer, for tests
// of what a caller does with a stream that breaks (the runtime retries the
// planning step). Played by Complete, which cannot deliver part of an
// answer, the step returns the same error. A nil err is a construction
// error: see Step.Err.
func FailMidStream(text string, err error) Step {
	s := Step{label: fmt.Sprintf("FailMidStream(%s)", quoteShort(text))}
	if err == nil {
		s.err = errors.New("FailMidStream: nil error")
		return s
	}
	s.play = func(context.Context, *Client, *model.Request) (*model.Response, error) {
		return nil, &midStream{text: text, err: err}
	}
	return s
}

// midStream is the outcome of a FailMidStream step: its text is streamed,
// then err ends the stream.
type midStream struct {
	text string
	err  error
}

// Error says how much was streamed before err.
func (m *midStream) Error() string {
	return fmt.Sprintf("the stream failed after %d bytes of text: %v", len(m.text), m.err)
}

// Unwrap returns the step's error.
func (m *midStream) Unwrap() error { return m.err }
