package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// maxTermCount caps the count of one term in one field. Counts above it add
// nothing under BM25 saturation and would only waste posting space.
const maxTermCount = 255

// TermCount is how often one term occurs in one field.
type TermCount struct {
	Term  string
	Count uint32
}

// FieldTerms is one field's terms, sorted by term, with its length in terms
// (stop words excluded). [FieldTerms.Length] equals the sum of Counts.
type FieldTerms struct {
	Terms  []TermCount
	Length uint32
}

// Document is one tool as the [Index] sees it: its names and per-field term
// counts. It is small, plain data so generated code can emit it as a Go
// literal (see [Document.GoString]), and is validated when it enters an Index.
type Document struct {
	// Analyzer is the [AnalyzerVersion] that produced the terms.
	Analyzer string
	// Name is the unique key reported in hits.
	Name string
	// Aliases are other exact names the name tiers match.
	Aliases []string
	// Fields holds the per-field terms, indexed by [Field].
	Fields [NumFields]FieldTerms
}

// ErrInvalidDocument is wrapped by every [Document] validation error.
var ErrInvalidDocument = errors.New("search: invalid document")

// NewDocument analyzes src with the default analyzer. To build many
// documents, a [DocumentBuilder] is faster.
func NewDocument(src Source) Document {
	return build(src, nil)
}

// DocumentBuilder builds Documents with the default analyzer, remembering
// the term of every word it has analyzed so that a bulk build (a registry's
// catalog, a catalog file) stems each distinct word once. It is safe for
// concurrent use; the zero value is ready to use.
type DocumentBuilder struct {
	stems stemCache
}

// NewDocumentBuilder returns an empty [DocumentBuilder].
func NewDocumentBuilder() *DocumentBuilder { return &DocumentBuilder{} }

// Build analyzes src; the result equals NewDocument(src).
func (db *DocumentBuilder) Build(src Source) Document {
	return build(src, &db.stems)
}

// build analyzes src, memoizing terms in stems when it is not nil.
func build(src Source, stems *stemCache) Document {
	d := Document{
		Analyzer: AnalyzerVersion,
		Name:     src.Name,
		Aliases:  dedupeAliases(src.Name, src.Aliases),
	}
	b := fieldBuilder{stems: stems}
	b.add(src.Name)
	for _, a := range d.Aliases {
		b.add(a)
	}
	d.Fields[FieldName] = b.build()
	b.add(src.Title)
	d.Fields[FieldTitle] = b.build()
	b.add(src.Description)
	d.Fields[FieldDescription] = b.build()
	for _, k := range src.Keywords {
		b.add(k)
	}
	d.Fields[FieldKeywords] = b.build()
	for _, a := range src.Args {
		b.add(a.Name)
	}
	d.Fields[FieldArgNames] = b.build()
	for _, a := range src.Args {
		b.add(a.Description)
	}
	d.Fields[FieldArgDescriptions] = b.build()
	return d
}

// dedupeAliases drops empty aliases, aliases equal to name and repeats,
// keeping first-seen order.
func dedupeAliases(name string, aliases []string) []string {
	var out []string
	for _, a := range aliases {
		if a == "" || a == name || slices.Contains(out, a) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// fieldBuilder accumulates the terms of one field.
type fieldBuilder struct {
	stems  *stemCache // nil: no memo
	counts map[string]uint32
}

func (b *fieldBuilder) add(text string) {
	if b.counts == nil {
		b.counts = make(map[string]uint32)
	}
	forEachToken(text, func(tok []byte) {
		var t string
		if b.stems != nil {
			t = b.stems.term(tok)
		} else {
			t, _ = termOf(tok)
		}
		if t != "" {
			b.counts[t]++
		}
	})
}

// build returns the accumulated field and resets the builder.
func (b *fieldBuilder) build() FieldTerms {
	var f FieldTerms
	for t, c := range b.counts {
		if c > maxTermCount {
			c = maxTermCount
		}
		f.Terms = append(f.Terms, TermCount{Term: t, Count: c})
		f.Length += c
	}
	slices.SortFunc(f.Terms, func(a, b TermCount) int { return strings.Compare(a.Term, b.Term) })
	b.counts = nil
	return f
}

// Validate reports every way d is malformed: wrong analyzer version, empty
// or repeated names, unsorted or repeated terms, zero or oversized counts,
// and lengths that do not match the counts.
func (d Document) Validate() error {
	var errs []error
	if d.Analyzer != AnalyzerVersion {
		errs = append(errs, fmt.Errorf("analyzer is %q, want %q: the document was computed by another version of Quiver; "+
			"regenerate it with this one (goa gen <your design package>, or search.NewDocument for a document built at run time)", d.Analyzer, AnalyzerVersion))
	}
	if d.Name == "" {
		errs = append(errs, errors.New("name is empty"))
	}
	for i, a := range d.Aliases {
		if a == "" {
			errs = append(errs, fmt.Errorf("alias %d is empty", i))
		} else if a == d.Name || slices.Contains(d.Aliases[:i], a) {
			errs = append(errs, fmt.Errorf("alias %q is repeated", a))
		}
	}
	for f := range NumFields {
		ft := d.Fields[f]
		var sum uint32
		for i, tc := range ft.Terms {
			switch {
			case tc.Term == "":
				errs = append(errs, fmt.Errorf("%s: term %d is empty", Field(f), i))
			case i > 0 && ft.Terms[i-1].Term >= tc.Term:
				errs = append(errs, fmt.Errorf("%s: term %q is out of order or repeated", Field(f), tc.Term))
			}
			if tc.Count == 0 || tc.Count > maxTermCount {
				errs = append(errs, fmt.Errorf("%s: term %q has count %d, want 1..%d", Field(f), tc.Term, tc.Count, maxTermCount))
			}
			sum += tc.Count
		}
		if sum != ft.Length {
			errs = append(errs, fmt.Errorf("%s: length is %d but counts sum to %d", Field(f), ft.Length, sum))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w %q: %w", ErrInvalidDocument, d.Name, errors.Join(errs...))
}

// Equal reports whether d and o hold the same names and terms.
func (d Document) Equal(o Document) bool {
	if d.Analyzer != o.Analyzer || d.Name != o.Name || !slices.Equal(d.Aliases, o.Aliases) {
		return false
	}
	for f := range NumFields {
		if d.Fields[f].Length != o.Fields[f].Length || !slices.Equal(d.Fields[f].Terms, o.Fields[f].Terms) {
			return false
		}
	}
	return true
}

// Clone returns a deep copy of d.
func (d Document) Clone() Document {
	c := d
	c.Aliases = slices.Clone(d.Aliases)
	for f := range NumFields {
		c.Fields[f].Terms = slices.Clone(d.Fields[f].Terms)
	}
	return c
}

// GoString renders d as a Go composite literal of type search.Document, for
// code generators.
func (d Document) GoString() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "search.Document{Analyzer: %q, Name: %q", d.Analyzer, d.Name)
	if len(d.Aliases) > 0 {
		sb.WriteString(", Aliases: []string{")
		for i, a := range d.Aliases {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%q", a)
		}
		sb.WriteString("}")
	}
	sb.WriteString(", Fields: [search.NumFields]search.FieldTerms{")
	for f := range NumFields {
		ft := d.Fields[f]
		if ft.Length == 0 {
			continue
		}
		fmt.Fprintf(&sb, "search.%s: {Length: %d, Terms: []search.TermCount{", fieldConstNames[f], ft.Length)
		for i, tc := range ft.Terms {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "{Term: %q, Count: %d}", tc.Term, tc.Count)
		}
		sb.WriteString("}}, ")
	}
	sb.WriteString("}}")
	return sb.String()
}

var fieldConstNames = [NumFields]string{"FieldName", "FieldTitle", "FieldDescription", "FieldKeywords", "FieldArgNames", "FieldArgDescriptions"}
