package search_test

import (
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/quiver-go/quiver/internal/benchdata"
)

// The fuzzy bleve peer is the plain peer (bleve_peer_test.go: same index,
// fields, analyzer and disjunction) with bleve's own typo tolerance turned
// on in every match query: each analyzed query term also matches the
// indexed terms within an edit distance, its score divided by the
// distance plus one.
//
// Setting: fuzziness 1 with prefix length 1 (the first rune must match).
// It is the setting that serves bleve best among the ordinary ones, measured
// on every 20th MetaTool query (1,031), clean and with typos.Query typos:
//
//	setting                 nDCG@10 typos  nDCG@10 clean  time per query
//	plain (no fuzziness)    0.4447         0.5098         0.4 ms
//	fuzziness 1, prefix 0   0.4596         0.4730         9 ms
//	fuzziness 1, prefix 1   0.4729         0.4923         9 ms
//	fuzziness 2, prefix 0   0.3421         0.3574         46-85 ms
//	auto, prefix 0          0.4555         0.4680         32-38 ms
//
// bleve's "auto" (SetAutoFuzziness: distance 0 for terms of up to 2 bytes,
// 1 up to 5, 2 beyond, as Elasticsearch's AUTO) lets long terms drift two
// edits, which matches many unrelated words in 199 tools' text, and is 3-4
// times slower; fuzziness 1 reaches the one-edit typos typos.Query makes
// (insertions, deletions and substitutions at least: bleve's automaton
// does not reach every swap of adjacent letters), and the one-rune prefix
// drops spurious matches that cost more than the typos it gives up (those
// of the first letter). So the comparison gives bleve its best fuzzy
// score, not a handicapped one.
const (
	bleveFuzziness = 1
	blevePrefix    = 1
)

// newBleveFuzzyPeer indexes tools in a fresh fuzzy peer closed when tb
// ends.
func newBleveFuzzyPeer(tb testing.TB, tools []benchdata.Tool) *blevePeer {
	tb.Helper()
	p := newBlevePeer(tb, tools)
	p.fuzzy = func(mq *query.MatchQuery) {
		mq.SetFuzziness(bleveFuzziness)
		mq.SetPrefix(blevePrefix)
	}
	return p
}

// TestBleveFuzzyPeerForgives checks on the fixture that the fuzzy peer
// finds tools through one-edit typos the plain peer misses, and still
// finds them through the correct words.
func TestBleveFuzzyPeerForgives(t *testing.T) {
	plain, fuzzy := newBlevePeer(t, peerFixture), newBleveFuzzyPeer(t, peerFixture)
	for _, c := range []struct{ query, want string }{
		{"wether", "get_weather"},            // deletion
		{"exporr workspace", "start_export"}, // substitution
		{"fille", "filesystem.read_file"},    // insertion
		{"weather", "get_weather"},           // no typo
	} {
		if hits := fuzzy.Search(c.query, 10); len(hits) == 0 || hits[0].Name != c.want {
			t.Errorf("fuzzy Search(%q) = %v; want %s first", c.query, hits, c.want)
		}
	}
	if hits := plain.Search("wether", 10); len(hits) != 0 {
		t.Errorf("plain Search(%q) = %v; want nothing (the plain peer has no typo tolerance)", "wether", hits)
	}
	if hits := fuzzy.Search("xeather", 10); len(hits) != 0 {
		t.Errorf("fuzzy Search(%q) = %v; want nothing (the first letter must match)", "xeather", hits)
	}
}
