package search

import (
	"slices"
	"strings"
)

// WithAliases returns a copy of d that also answers to the given names in
// the name tiers, with their terms added to the name field — as if they had
// been in [Source.Aliases]. Empty names, d.Name and aliases d already has are
// skipped. Catalogs use it to add the wire names they assign at run time to
// documents computed at generation time.
func (d Document) WithAliases(aliases ...string) Document {
	c := d.Clone()
	name := &c.Fields[FieldName]
	for _, a := range aliases {
		if a == "" || a == c.Name || slices.Contains(c.Aliases, a) {
			continue
		}
		c.Aliases = append(c.Aliases, a)
		for _, t := range Analyze(a) {
			i, found := slices.BinarySearchFunc(name.Terms, t, func(tc TermCount, t string) int { return strings.Compare(tc.Term, t) })
			switch {
			case !found:
				name.Terms = slices.Insert(name.Terms, i, TermCount{Term: t, Count: 1})
			case name.Terms[i].Count < maxTermCount:
				name.Terms[i].Count++
			default:
				continue
			}
			name.Length++
		}
	}
	return c
}
