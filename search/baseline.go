package search

// Baseline is the comparison ranker, defined exactly: Okapi BM25 with k1 1.2
// and b 0.75, Lucene IDF ln(1 + (N - df + 0.5)/(df + 0.5)), one field made of
// the name (with _ - . read as spaces) and the description, tokens the
// lower-cased runs of letters and digits; no identifier splitting, stemming,
// stop words or field weights, and no name tiers.
type Baseline struct{}

// NewBaseline returns an empty baseline ranker.
func NewBaseline() *Baseline { return &Baseline{} }

// Add indexes one tool; names must be unique.
func (b *Baseline) Add(name, description string) error { panic("unimplemented") }

// Search returns at most limit hits (DefaultLimit when limit <= 0), by
// score then name.
func (b *Baseline) Search(query string, limit int) []Hit { panic("unimplemented") }
