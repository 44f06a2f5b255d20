package search

import (
	"errors"
	"sync"
)

// ErrDuplicate is returned by Index.Add for a name already indexed.
var ErrDuplicate = errors.New("search: duplicate document name")

// Index ranks tool documents with BM25F and the name tiers. The zero value
// is not usable; call NewIndex. It is safe for concurrent use: any number
// of Search calls run alongside one writer.
type Index struct {
	mu     sync.RWMutex
	params Params
}

// NewIndex returns an empty index with the given parameters.
func NewIndex(p Params) (*Index, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Index{params: p}, nil
}

// Add indexes doc; it fails if doc is invalid or its name is indexed.
func (ix *Index) Add(doc Document) error { panic("unimplemented") }

// Replace indexes doc, replacing any document of the same name.
func (ix *Index) Replace(doc Document) error { panic("unimplemented") }

// Remove drops the named document and reports whether it was indexed.
func (ix *Index) Remove(name string) bool { panic("unimplemented") }

// Has reports whether a document of that name is indexed.
func (ix *Index) Has(name string) bool { panic("unimplemented") }

// Len returns the number of indexed documents.
func (ix *Index) Len() int { panic("unimplemented") }

// Search returns at most limit hits (DefaultLimit when limit <= 0).
func (ix *Index) Search(query string, limit int) []Hit { panic("unimplemented") }
