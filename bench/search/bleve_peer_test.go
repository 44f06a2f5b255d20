package search_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	blevesearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/quiver-go/quiver/internal/benchdata"
	"github.com/quiver-go/quiver/search"
)

// The bleve peer is the outside engine the benchmarks compare with. It lives
// in the benchmark module, in tests only: bleve never enters the root
// module's requirements nor the product's import graph.
//
// Set-up, chosen to be a fair, ordinary bleve deployment:
//   - an in-memory scorch index (bleve.NewUsing with an empty path and
//     scorch.Name) with mapping.ScoringModel = "bm25"; BM25 is implemented
//     only for scorch, and bleve.NewMemOnly (upsidedown) silently scores
//     with TF-IDF instead — TestBlevePeerScoresWithBM25 checks the model;
//   - a static document mapping with five text fields analyzed by bleve's
//     English analyzer ("en": unicode tokenizer, possessive filter, lower
//     case, English stop words, Porter stemmer): the same fields the quiver
//     Index gets (name, title, description, argument names, argument
//     descriptions); nothing stored, no term vectors, no doc values, no
//     _all field;
//   - the name with _ - . read as spaces, as the Baseline reads it: the
//     unicode tokenizer keeps "write_file" and "filesystem.write" whole,
//     which would leave bleve's name field nearly useless;
//   - the query: a disjunction of one match query per field (each OR of the
//     query's analyzed terms, no field boosts), so a document's score is
//     the sum of its per-field BM25 scores scaled by bleve's coordination
//     factor; top 10 by score, ties by document id (the tool name) so
//     results are deterministic like the Index's. The id tie-break costs
//     bleve about 10-20% of its search time against its default score-only
//     sort (measured at 1k and 50k tools).
type blevePeer struct {
	tb  testing.TB // fails the test or benchmark when a search errs
	idx bleve.Index
	// fuzzy, when set, makes each match query fuzzy (see
	// newBleveFuzzyPeer); nil for the plain peer.
	fuzzy func(*query.MatchQuery)
}

// bleveFields are the indexed fields, in the order of the quiver fields.
var bleveFields = []string{"name", "title", "description", "arg_names", "arg_descriptions"}

// bleveNameSpacer reads the separators of tool names as spaces.
var bleveNameSpacer = strings.NewReplacer("_", " ", "-", " ", ".", " ")

// newBleveMapping returns the peer's index mapping.
func newBleveMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = en.AnalyzerName
	m.IndexDynamic = false
	m.StoreDynamic = false
	m.DocValuesDynamic = false
	doc := bleve.NewDocumentStaticMapping()
	for _, f := range bleveFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store = false
		fm.IncludeTermVectors = false
		fm.IncludeInAll = false
		fm.DocValues = false
		doc.AddFieldMappingsAt(f, fm)
	}
	m.DefaultMapping = doc
	return m
}

// bleveDoc returns the document the peer indexes for t.
func bleveDoc(t benchdata.Tool) map[string]any {
	argNames := make([]string, len(t.Args))
	argDescs := make([]string, len(t.Args))
	for i, a := range t.Args {
		argNames[i] = bleveNameSpacer.Replace(a.Name)
		argDescs[i] = a.Description
	}
	return map[string]any{
		"name":             bleveNameSpacer.Replace(t.Name),
		"title":            t.Title,
		"description":      t.Description,
		"arg_names":        strings.Join(argNames, "\n"),
		"arg_descriptions": strings.Join(argDescs, "\n"),
	}
}

// bleveInput is one document ready for the peer: its id (the tool name)
// and its fields.
type bleveInput struct {
	id  string
	doc map[string]any
}

// bleveInputs converts tools to peer documents.
func bleveInputs(tools []benchdata.Tool) []bleveInput {
	in := make([]bleveInput, len(tools))
	for i, t := range tools {
		in[i] = bleveInput{id: t.Name, doc: bleveDoc(t)}
	}
	return in
}

// buildBleve indexes docs in a fresh in-memory scorch index with mapping m,
// in batches of 1,000. The caller closes the index.
func buildBleve(m mapping.IndexMapping, docs []bleveInput) (bleve.Index, error) {
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("bleve: %w", err)
	}
	const batchSize = 1000
	for start := 0; start < len(docs); start += batchSize {
		batch := idx.NewBatch()
		for _, d := range docs[start:min(start+batchSize, len(docs))] {
			if err := batch.Index(d.id, d.doc); err != nil {
				_ = idx.Close()
				return nil, fmt.Errorf("bleve: index %q: %w", d.id, err)
			}
		}
		if err := idx.Batch(batch); err != nil {
			_ = idx.Close()
			return nil, fmt.Errorf("bleve: batch: %w", err)
		}
	}
	if n, err := idx.DocCount(); err != nil || n != uint64(len(docs)) {
		_ = idx.Close()
		return nil, fmt.Errorf("bleve: %d documents indexed (err %v), want %d", n, err, len(docs))
	}
	return idx, nil
}

// newBlevePeer indexes tools in a fresh peer closed when tb ends.
func newBlevePeer(tb testing.TB, tools []benchdata.Tool) *blevePeer {
	tb.Helper()
	return newBlevePeerWith(tb, newBleveMapping(), tools)
}

// newBlevePeerWith is newBlevePeer with another mapping.
func newBlevePeerWith(tb testing.TB, m mapping.IndexMapping, tools []benchdata.Tool) *blevePeer {
	tb.Helper()
	idx, err := buildBleve(m, bleveInputs(tools))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = idx.Close() })
	return &blevePeer{tb: tb, idx: idx}
}

// request returns the peer's search request for text.
func (p *blevePeer) request(text string, limit int, explain bool) *bleve.SearchRequest {
	if limit <= 0 {
		limit = search.DefaultLimit
	}
	disjuncts := make([]query.Query, len(bleveFields))
	for i, f := range bleveFields {
		mq := bleve.NewMatchQuery(text)
		mq.SetField(f)
		if p.fuzzy != nil {
			p.fuzzy(mq)
		}
		disjuncts[i] = mq
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(disjuncts...), limit, 0, explain)
	req.SortBy([]string{"-_score", "_id"})
	return req
}

// Search implements search.Ranker. Every hit is TierScored: bleve has no
// name tiers.
func (p *blevePeer) Search(text string, limit int) []search.Hit {
	res, err := p.idx.Search(p.request(text, limit, false))
	if err != nil {
		p.tb.Fatalf("bleve: search %q: %v", text, err)
	}
	hits := make([]search.Hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = search.Hit{Name: h.ID, Score: h.Score, Tier: search.TierScored}
	}
	return hits
}

// peerFixture is a small catalog the project owns, for the peer's own tests.
var peerFixture = []benchdata.Tool{
	{Name: "start_export", Description: "Start an export of the workspace to a zip archive.",
		Args: []search.Arg{{Name: "format", Description: "Archive format, zip or tar."}}},
	{Name: "get_weather", Title: "Weather", Description: "Current weather and forecasts for a city.",
		Args: []search.Arg{{Name: "city", Description: "City name."}}},
	{Name: "filesystem.read_file", Description: "Read a file from disk and return its contents."},
	{Name: "send_email", Description: "Send an email message to one or more recipients."},
}

// TestBlevePeerScoresWithBM25 checks that the peer really scores with BM25:
// bleve names the model in each term's explanation ("as per bm25 model"),
// and falls back to "tf-idf" when the index cannot give field lengths (an
// upsidedown index, or a mapping without ScoringModel).
func TestBlevePeerScoresWithBM25(t *testing.T) {
	p := newBlevePeer(t, peerFixture)
	for _, m := range scoringModels(t, p, "weather forecast", "get_weather") {
		if m != index.BM25Scoring {
			t.Errorf("a term was scored with %q; want %q (is the index scorch with ScoringModel bm25?)", m, index.BM25Scoring)
		}
	}
	// Control: the same check sees TF-IDF when the mapping does not ask for
	// BM25, so it can tell the two apart.
	tfidf := newBleveMapping()
	tfidf.ScoringModel = ""
	for _, m := range scoringModels(t, newBlevePeerWith(t, tfidf, peerFixture), "weather forecast", "get_weather") {
		if m != index.TFIDFScoring {
			t.Errorf("control without ScoringModel scored a term with %q; want %q", m, index.TFIDFScoring)
		}
	}
}

// scoringModels runs text with explanations, checks that wantFirst ranks
// first, and returns the scoring model named by each term explanation of
// that hit.
func scoringModels(t *testing.T, p *blevePeer, text, wantFirst string) []string {
	t.Helper()
	res, err := p.idx.Search(p.request(text, 10, true))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != wantFirst {
		t.Fatalf("hits = %v; want %s first", res.Hits, wantFirst)
	}
	var models []string
	var visit func(e *blevesearch.Explanation)
	visit = func(e *blevesearch.Explanation) {
		if e == nil {
			return
		}
		if _, rest, ok := strings.Cut(e.Message, "as per "); ok {
			models = append(models, strings.Fields(rest)[0])
		}
		for _, c := range e.Children {
			visit(c)
		}
	}
	visit(res.Hits[0].Expl)
	if len(models) == 0 {
		t.Fatalf("no term explanation names a scoring model:\n%s", res.Hits[0].Expl)
	}
	return models
}

// TestBlevePeerRanks checks the peer's fields and name handling on the
// fixture.
func TestBlevePeerRanks(t *testing.T) {
	p := newBlevePeer(t, peerFixture)
	for _, c := range []struct{ query, want string }{
		{"export workspace", "start_export"},
		{"read file", "filesystem.read_file"}, // name split at _ and .
		{"weather", "get_weather"},            // title and description
		{"archive format", "start_export"},    // argument descriptions
		{"emails", "send_email"},              // stemming
	} {
		hits := p.Search(c.query, 10)
		if len(hits) == 0 || hits[0].Name != c.want {
			t.Errorf("Search(%q) = %v; want %s first", c.query, hits, c.want)
		}
	}
	if hits := p.Search("the of and", 10); len(hits) != 0 {
		t.Errorf("a stop-word query matched %v; want nothing", hits)
	}
}
