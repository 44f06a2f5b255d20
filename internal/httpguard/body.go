package httpguard

import (
	"errors"
	"io"
	"net/http"
	"os"
)

// BodyProblem says why ReadBody gave up on a request body.
type BodyProblem int

// The problems of ReadBody; each has its HTTP status (Status).
const (
	// BodyTooLarge: the body is over the limit (413).
	BodyTooLarge BodyProblem = iota + 1
	// BodyBusy: every reading slot is taken (429; retry shortly).
	BodyBusy
	// BodySlow: the body did not arrive before the connection's read
	// deadline (408).
	BodySlow
	// BodyBroken: reading failed otherwise (400).
	BodyBroken
)

// Status is the HTTP status that answers p.
func (p BodyProblem) Status() int {
	switch p {
	case BodyTooLarge:
		return http.StatusRequestEntityTooLarge
	case BodyBusy:
		return http.StatusTooManyRequests
	case BodySlow:
		return http.StatusRequestTimeout
	}
	return http.StatusBadRequest
}

// BodySlots bounds how many request bodies a server reads at once, so
// slow senders cannot hold every goroutine in a read. The zero value (or
// NewBodySlots(0)) does not bound them.
type BodySlots struct {
	slots chan struct{}
}

// NewBodySlots returns slots for n bodies at once; n <= 0 is no bound.
func NewBodySlots(n int) *BodySlots {
	if n <= 0 {
		return &BodySlots{}
	}
	return &BodySlots{slots: make(chan struct{}, n)}
}

// Cap is the number of bodies read at once, 0 for no bound.
func (b *BodySlots) Cap() int { return cap(b.slots) }

// ReadBody reads r's body whole, at most limit bytes, while a slot is
// free. A refused or failed read returns its problem and, for BodyBroken,
// the read's error; the caller words the answer. The read deadline is the
// server's (set it before the handler runs).
func (b *BodySlots) ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, BodyProblem, error) {
	if r.ContentLength > limit {
		return nil, BodyTooLarge, nil
	}
	if b.slots != nil {
		select {
		case b.slots <- struct{}{}:
			defer func() { <-b.slots }()
		default:
			return nil, BodyBusy, nil
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return body, 0, nil
	case errors.As(err, &mbe):
		return nil, BodyTooLarge, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, BodySlow, nil
	}
	return nil, BodyBroken, err
}
