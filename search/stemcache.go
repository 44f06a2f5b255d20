package search

import "sync"

// stemCacheLimit bounds the memoized query words; past it, new words are
// stemmed on every query instead of being remembered.
const stemCacheLimit = 1 << 16

// stemCache memoizes the term of each query word, so repeated queries do not
// allocate. Stop words map to "".
type stemCache struct {
	mu    sync.RWMutex
	terms map[string]string
}

// term returns the index term of a lower-case token, or "" for a stop word.
func (c *stemCache) term(tok []byte) string {
	c.mu.RLock()
	t, ok := c.terms[string(tok)]
	c.mu.RUnlock()
	if ok {
		return t
	}
	t, _ = termOf(tok)
	c.mu.Lock()
	if c.terms == nil {
		c.terms = make(map[string]string)
	}
	if len(c.terms) < stemCacheLimit {
		c.terms[string(tok)] = t
	}
	c.mu.Unlock()
	return t
}
