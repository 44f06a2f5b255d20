package discovery

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
)

// ErrSearchLoop is wrapped by the error of an invocation whose model kept
// searching after its search budget was spent instead of answering or
// calling a tool (Turn.NextRound says which tool and budget).
var ErrSearchLoop = errors.New("discovery: search loop")

// DefaultSearchLimit is how many tools one search returns at most.
const DefaultSearchLimit = 5

// DefaultMinRelativeScore is the least score, as a fraction of the best
// hit's, for a scored hit to be returned and discovered.
const DefaultMinRelativeScore = 0.5

// cachedIndexes is how many catalogs an Engine keeps indexed: an agent's
// catalog changes rarely, and a few agents may share a client.
const cachedIndexes = 8

// Engine ranks catalogs' deferred tools. It keeps the index of the last
// few catalogs it searched, keyed by their fingerprint, so consecutive
// requests with the same catalog index it once. It is safe for concurrent
// use; each adapter client holds one.
type Engine struct {
	limit       int
	minRelative float64

	seed    maphash.Seed
	mu      sync.Mutex
	indexes map[uint64]*search.Index
	recent  []uint64 // catalog keys, least recently used first
}

// Option configures an Engine. The adapters' options of the same names
// (WithSearchLimit, WithMinRelativeScore) pass their values here, so every
// adapter validates them the same way.
type Option func(*Engine) error

// WithSearchLimit sets how many tools one search returns at most (n > 0;
// DefaultSearchLimit when not given).
func WithSearchLimit(n int) Option {
	return func(e *Engine) error {
		if n < 1 {
			return fmt.Errorf("search limit %d must be positive (leave the option out for the default, %d)", n, DefaultSearchLimit)
		}
		e.limit = n
		return nil
	}
}

// WithMinRelativeScore sets the least score, as a fraction (0..1) of the
// best hit's, for a scored hit to be returned and discovered
// (DefaultMinRelativeScore when not given); 0 returns every hit up to the
// search limit. Name matches are always returned.
func WithMinRelativeScore(f float64) Option {
	return func(e *Engine) error {
		if !(f >= 0 && f <= 1) {
			return fmt.Errorf("min relative score %v must be between 0 and 1", f)
		}
		e.minRelative = f
		return nil
	}
}

// New returns an Engine with DefaultSearchLimit and
// DefaultMinRelativeScore unless opts say otherwise. It fails, naming
// every one, when options are out of range.
func New(opts ...Option) (*Engine, error) {
	e := &Engine{limit: DefaultSearchLimit, minRelative: DefaultMinRelativeScore, seed: maphash.MakeSeed(), indexes: map[uint64]*search.Index{}}
	var errs []error
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(e); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("discovery: %w", errors.Join(errs...))
	}
	return e, nil
}

// Fingerprint identifies the searchable content of deferred definitions:
// their idents and search documents, in any order, written
// "sha256:<hex>". Two catalogs with the same fingerprint rank every query
// the same way; unlike the engine's own cache key it is stable across
// processes, for callers that publish it.
func Fingerprint(deferred []model.ToolDefinition) string {
	docs := make([]*search.Document, 0, len(deferred))
	for _, d := range deferred {
		if d.Search != nil {
			docs = append(docs, d.Search)
		}
	}
	slices.SortFunc(docs, func(a, b *search.Document) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	h := sha256.New()
	var buf []byte
	for _, d := range docs {
		buf = writeDocument(buf[:0], d)
		h.Write(buf)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// writeDocument appends every part of d that ranking reads to buf, each
// string length-prefixed so no two documents write the same bytes.
func writeDocument(buf []byte, d *search.Document) []byte {
	str := func(s string) {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	str(d.Analyzer)
	str(d.Name)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(d.Aliases)))
	for _, a := range d.Aliases {
		str(a)
	}
	for _, f := range d.Fields {
		buf = binary.LittleEndian.AppendUint32(buf, f.Length)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(f.Terms)))
		for _, t := range f.Terms {
			str(t.Term)
			buf = binary.LittleEndian.AppendUint32(buf, t.Count)
		}
	}
	return buf
}

// catalogKey is the engine's cache key for deferred: a fingerprint of the
// same content as Fingerprint, computed per request, so it must be cheap —
// a seeded 64-bit hash per document, summed so that order does not matter
// and no sorting is needed.
func (e *Engine) catalogKey(deferred []*model.ToolDefinition) uint64 {
	var sum uint64
	var buf []byte
	for _, d := range deferred {
		if d.Search != nil {
			buf = writeDocument(buf[:0], d.Search)
			sum += maphash.Bytes(e.seed, buf)
		}
	}
	return sum ^ uint64(len(deferred))<<56
}

// index returns the index of deferred, built once per catalog.
func (e *Engine) index(deferred []*model.ToolDefinition) (*search.Index, error) {
	key := e.catalogKey(deferred)
	e.mu.Lock()
	defer e.mu.Unlock()
	if ix, ok := e.indexes[key]; ok {
		e.touch(key)
		return ix, nil
	}
	ix, err := search.NewIndex(search.DefaultParams())
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	for _, d := range deferred {
		if err := ix.Add(*d.Search); err != nil {
			return nil, fmt.Errorf("discovery: deferred tool %q: %w", d.Name, err)
		}
	}
	e.indexes[key] = ix
	e.touch(key)
	if len(e.recent) > cachedIndexes {
		delete(e.indexes, e.recent[0])
		e.recent = e.recent[1:]
	}
	return ix, nil
}

// touch marks key as the most recently used catalog.
func (e *Engine) touch(key uint64) {
	e.recent = slices.DeleteFunc(e.recent, func(k uint64) bool { return k == key })
	e.recent = append(e.recent, key)
}
