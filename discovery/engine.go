package discovery

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
)

// ErrSearchLoop is wrapped by the error of an invocation whose model kept
// searching after its search budget was spent instead of answering or
// calling a tool ([Turn.NextRound] says which tool and budget).
var ErrSearchLoop = errors.New("discovery: search loop")

// DefaultSearchLimit is how many tools one search returns at most when
// [Settings.Limit] is 0.
const DefaultSearchLimit = 5

// DefaultMinRelativeScore is the least score, as a fraction of the best
// hit's, for a scored hit to be returned and discovered when
// [Settings.MinRelativeScore] is 0.
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

// NoScoreCut is the [Settings.MinRelativeScore] that cuts no weak hit: a
// search returns every hit up to the limit, however low its score. (The
// zero MinRelativeScore is the default cut, DefaultMinRelativeScore.)
const NoScoreCut = -1.0

// Settings are how an [Engine] ranks a search: the one value every adapter
// that searches accepts (portable.WithDiscovery, openai.WithDiscovery,
// anthropic.WithDiscovery, compat.WithDiscovery) and passes to [New], so
// every adapter defaults and validates them the same way. The zero value
// is the defaults.
type Settings struct {
	// Limit is how many tools one search returns at most: positive, or 0
	// for [DefaultSearchLimit].
	Limit int
	// MinRelativeScore is the least score, as a fraction (0..1] of the
	// best hit's, for a scored hit to be returned and discovered: 0 for
	// [DefaultMinRelativeScore] (not "no cut"), [NoScoreCut] to return every
	// hit up to [Settings.Limit]. Name matches are always returned.
	MinRelativeScore float64
}

// Validate reports every setting out of range, each error saying what
// was given and what is accepted.
func (s Settings) Validate() error {
	var errs []error
	if s.Limit < 0 {
		errs = append(errs, fmt.Errorf("search limit %d must be positive, or 0 for the default (%d)", s.Limit, DefaultSearchLimit))
	}
	if f := s.MinRelativeScore; f != NoScoreCut && !(f >= 0 && f <= 1) {
		errs = append(errs, fmt.Errorf("min relative score %v must be between 0 and 1, 0 for the default (%v), or discovery.NoScoreCut to cut no weak hit", f, DefaultMinRelativeScore))
	}
	if len(errs) > 0 {
		return fmt.Errorf("discovery: search settings: %w", errors.Join(errs...))
	}
	return nil
}

// New returns an [Engine] ranking by s; the zero [Settings] means
// [DefaultSearchLimit] and [DefaultMinRelativeScore]. It fails, naming
// every setting out of range ([Settings.Validate]).
func New(s Settings) (*Engine, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{limit: s.Limit, minRelative: s.MinRelativeScore, seed: maphash.MakeSeed(), indexes: map[uint64]*search.Index{}}
	if e.limit == 0 {
		e.limit = DefaultSearchLimit
	}
	switch e.minRelative {
	case 0:
		e.minRelative = DefaultMinRelativeScore
	case NoScoreCut:
		e.minRelative = 0
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
	slices.SortFunc(docs, func(a, b *search.Document) int { return strings.Compare(a.Name, b.Name) })
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
