package search

// Tier says why a hit ranks where it does. Lower tiers rank first.
type Tier uint8

const (
	// TierExact: the query equals one of the tool's names.
	TierExact Tier = iota
	// TierCaseFolded: the query equals a name ignoring case.
	TierCaseFolded
	// TierSeparatorFolded: the query equals a name ignoring case, accents
	// and the separators _ - . / and spaces (startExport ~ start_export,
	// météo ~ meteo).
	TierSeparatorFolded
	// TierFuzzyName: no name matched, but the query separator-folded is
	// within a few edits of a name or name part (fetchewebpage ~
	// fetch_webpage); nearer names first. See [Index.Search].
	TierFuzzyName
	// TierScored: the tool matched query terms.
	TierScored
)

var tierNames = [...]string{"exact", "case-folded", "separator-folded", "fuzzy-name", "scored"}

// String returns the tier's name.
func (t Tier) String() string {
	if int(t) < len(tierNames) {
		return tierNames[t]
	}
	return "unknown"
}

// Hit is one search result.
type Hit struct {
	// Name is the matched document's Name.
	Name string
	// Score is the BM25F score of the query against the document (zero for
	// a name-tier hit that shares no term with the query).
	Score float64
	// Tier says why the hit ranks where it does.
	Tier Tier
}

// Ranker ranks named documents for a query. *Index and *Baseline implement it.
type Ranker interface {
	// Search returns at most limit hits in rank order.
	Search(query string, limit int) []Hit
}
