package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
	"sync/atomic"
)

// idSource generates unique ids: a random prefix per runtime and a counter.
type idSource struct {
	once   sync.Once
	prefix string
	n      atomic.Uint64
}

func (s *idSource) next(kind string) string {
	s.once.Do(func() {
		var b [4]byte
		_, _ = rand.Read(b[:])
		s.prefix = hex.EncodeToString(b[:])
	})
	return kind + "-" + s.prefix + "-" + strconv.FormatUint(s.n.Add(1), 10)
}
