package search

import (
	"github.com/kljensen/snowball/english"
)

// AnalyzerVersion names the analyzer that produced a [Document]'s terms. An
// [Index] refuses documents built by another version: stale generated code must
// be regenerated (goa gen) rather than silently mis-ranked.
//
// quiver-2 added accent and compatibility folding, character bigrams for
// Han and Kana, and English stemming of ASCII words only; quiver-en-1
// documents are refused with a message naming the regeneration command.
const AnalyzerVersion = "quiver-2"

// Analyze turns text into index terms with the default analyzer:
//
//   - words are maximal runs of letters, combining marks and digits (the
//     letter and numeral classes of Unicode word segmentation, UAX #29,
//     without its dictionary-based segmentation of scripts written without
//     spaces, such as Thai);
//   - words split further inside identifiers at case changes (startExport
//     → start export, HTTPServer → http server); letters and digits stay
//     together (base64 stays one token);
//   - lower-case, then compatibility-decompose (NFKD) and drop nonspacing
//     marks: météo → meteo, Ｗｅｂ → web, ﬁle → file;
//   - Han, Hiragana and Katakana runs become overlapping character bigrams
//     (天气查询 → 天气 气查 查询; a lone character stays itself), so a query
//     naming part of a phrase matches it;
//   - drop English stop words and conversational fillers ("the", "please");
//   - stem ASCII words with the Snowball English stemmer. Stemming is
//     English only: other words are indexed as folded.
//
// The same function analyzes documents and queries.
func Analyze(text string) []string {
	var out []string
	forEachToken(text, func(tok []byte) {
		if t, ok := termOf(tok); ok {
			out = append(out, t)
		}
	})
	return out
}

// termOf maps one folded token to its index term, or reports that the
// token is a stop word.
func termOf(tok []byte) (string, bool) {
	if _, stop := stopWords[string(tok)]; stop {
		return "", false
	}
	if !isASCII(tok) {
		return string(tok), true
	}
	return english.Stem(string(tok), false), true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
