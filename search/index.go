package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ErrDuplicate is returned by [Index.Add] for a name already indexed.
var ErrDuplicate = errors.New("search: duplicate document name")

// Index ranks tool documents with BM25F and the name tiers (see the package
// documentation). The zero value is not usable; call [NewIndex]. It is safe for
// concurrent use: any number of [Index.Search] calls run alongside one writer,
// and documents are added, replaced and removed in place, without a rebuild.
type Index struct {
	params Params

	mu sync.RWMutex
	// termIDs maps an index term to its id; terms and postings are indexed
	// by id. Ids of terms left without postings are recycled.
	termIDs   map[string]uint32
	terms     []string
	postings  [][]posting
	freeTerms []uint32
	// vocab finds the terms near a misspelled query word.
	vocab deletionIndex
	// slots hold the documents; a removed document's slot is recycled.
	slots     []slot
	freeSlots []uint32
	bySlot    map[string]uint32
	// names maps the names of every document to their slots, per tier.
	names nameTiers
	// totalLen is the sum of field lengths over live documents.
	totalLen [NumFields]uint64
	live     int

	stems   stemCache
	scratch sync.Pool // *scratch
}

// posting records one document's term frequencies for one term.
type posting struct {
	slot uint32
	tf   [NumFields]uint8
}

// slot is one indexed document. It keeps what ranking and removal read —
// names, field lengths, term ids — and not the document's term strings,
// which the postings hold already (Document rebuilds them): an index of a
// large catalog costs a third of the memory it would otherwise.
type slot struct {
	live     bool
	name     string
	aliases  []string
	analyzer string
	lengths  [NumFields]float64
	termIDs  []uint32
}

// NewIndex returns an empty index with the given parameters.
func NewIndex(p Params) (*Index, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Index{
		params:  p,
		termIDs: make(map[string]uint32),
		bySlot:  make(map[string]uint32),
		names:   newNameTiers(),
		vocab:   newDeletionIndex(),
	}, nil
}

// Params returns the index's BM25F parameters.
func (ix *Index) Params() Params { return ix.params }

// Add indexes doc. It fails, changing nothing, if doc is invalid or a
// document of the same name is indexed.
func (ix *Index) Add(doc Document) error {
	if err := doc.Validate(); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if _, ok := ix.bySlot[doc.Name]; ok {
		return fmt.Errorf("%w: %q is already indexed; use Replace to update it", ErrDuplicate, doc.Name)
	}
	ix.insert(doc.Clone())
	return nil
}

// Replace indexes doc, replacing any document of the same name. It fails,
// changing nothing, if doc is invalid.
func (ix *Index) Replace(doc Document) error {
	if err := doc.Validate(); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if s, ok := ix.bySlot[doc.Name]; ok {
		ix.delete(s)
	}
	ix.insert(doc.Clone())
	return nil
}

// Remove drops the named document and reports whether it was indexed.
func (ix *Index) Remove(name string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s, ok := ix.bySlot[name]
	if ok {
		ix.delete(s)
	}
	return ok
}

// Has reports whether a document of that name is indexed.
func (ix *Index) Has(name string) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.bySlot[name]
	return ok
}

// Document returns a copy of the named document.
func (ix *Index) Document(name string) (Document, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s, ok := ix.bySlot[name]
	if !ok {
		return Document{}, false
	}
	return ix.document(s), true
}

// document rebuilds the document of slot s from its postings: counts are
// exact, as Validate bounds them to what a posting holds. ix.mu is held.
func (ix *Index) document(s uint32) Document {
	sl := &ix.slots[s]
	d := Document{Analyzer: sl.analyzer, Name: sl.name, Aliases: slices.Clone(sl.aliases)}
	for _, id := range sl.termIDs {
		for _, p := range ix.postings[id] {
			if p.slot != s {
				continue
			}
			for f, tf := range p.tf {
				if tf > 0 {
					d.Fields[f].Terms = append(d.Fields[f].Terms, TermCount{Term: ix.terms[id], Count: uint32(tf)})
				}
			}
			break
		}
	}
	for f := range d.Fields {
		d.Fields[f].Length = uint32(sl.lengths[f])
		slices.SortFunc(d.Fields[f].Terms, func(a, b TermCount) int { return strings.Compare(a.Term, b.Term) })
	}
	return d
}

// Len returns the number of indexed documents.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// insert adds a validated document the index does not hold. ix.mu is held.
func (ix *Index) insert(doc Document) {
	var s uint32
	if n := len(ix.freeSlots); n > 0 {
		s = ix.freeSlots[n-1]
		ix.freeSlots = ix.freeSlots[:n-1]
	} else {
		s = uint32(len(ix.slots))
		ix.slots = append(ix.slots, slot{})
	}
	sl := slot{live: true, name: doc.Name, aliases: doc.Aliases, analyzer: doc.Analyzer}
	// Merge the fields' counts per term: one posting per term and document.
	byTerm := make(map[uint32]int)
	var ps []posting
	for f := range NumFields {
		ft := doc.Fields[f]
		sl.lengths[f] = float64(ft.Length)
		ix.totalLen[f] += uint64(ft.Length)
		for _, tc := range ft.Terms {
			id := ix.termID(tc.Term)
			i, ok := byTerm[id]
			if !ok {
				i = len(ps)
				byTerm[id] = i
				ps = append(ps, posting{slot: s})
				sl.termIDs = append(sl.termIDs, id)
			}
			ps[i].tf[f] = uint8(tc.Count) // Validate bounds counts to maxTermCount
		}
	}
	for i, id := range sl.termIDs {
		ix.postings[id] = append(ix.postings[id], ps[i])
	}
	ix.slots[s] = sl
	ix.bySlot[doc.Name] = s
	ix.names.add(s, doc.Name)
	for _, a := range doc.Aliases {
		ix.names.add(s, a)
	}
	ix.live++
}

// delete removes the live document in slot s. ix.mu is held.
func (ix *Index) delete(s uint32) {
	sl := &ix.slots[s]
	for _, id := range sl.termIDs {
		ps := ix.postings[id]
		for i := range ps {
			if ps[i].slot == s {
				ps[i] = ps[len(ps)-1]
				ps = ps[:len(ps)-1]
				break
			}
		}
		ix.postings[id] = ps
		if len(ps) == 0 {
			ix.vocab.remove(id, ix.terms[id])
			delete(ix.termIDs, ix.terms[id])
			ix.terms[id] = ""
			ix.freeTerms = append(ix.freeTerms, id)
		}
	}
	for f := range NumFields {
		ix.totalLen[f] -= uint64(sl.lengths[f])
	}
	ix.names.remove(s, sl.name)
	for _, a := range sl.aliases {
		ix.names.remove(s, a)
	}
	delete(ix.bySlot, sl.name)
	*sl = slot{}
	ix.freeSlots = append(ix.freeSlots, s)
	ix.live--
}

// termID returns the id of term, creating it. ix.mu is held.
func (ix *Index) termID(term string) uint32 {
	if id, ok := ix.termIDs[term]; ok {
		return id
	}
	var id uint32
	if n := len(ix.freeTerms); n > 0 {
		id = ix.freeTerms[n-1]
		ix.freeTerms = ix.freeTerms[:n-1]
		ix.terms[id] = term
	} else {
		id = uint32(len(ix.terms))
		ix.terms = append(ix.terms, term)
		ix.postings = append(ix.postings, nil)
	}
	ix.termIDs[term] = id
	ix.vocab.add(id, term)
	return id
}
