package registrytest

import (
	"io"
	"time"
)

// SlowBody is a request body that yields n bytes of JSON padding (spaces),
// one every interval: a client too slow for a front door's body deadline.
func SlowBody(n int, interval time.Duration) io.Reader {
	return &slowBody{n: n, interval: interval}
}

type slowBody struct {
	n        int
	interval time.Duration
}

func (s *slowBody) Read(p []byte) (int, error) {
	if s.n == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	time.Sleep(s.interval)
	s.n--
	p[0] = ' '
	return 1, nil
}
