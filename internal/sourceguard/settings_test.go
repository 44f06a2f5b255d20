package sourceguard

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// except returns files without those named.
func except(files []sourceFile, paths ...string) []sourceFile {
	var out []sourceFile
	for _, f := range files {
		if !slices.Contains(paths, f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// refuse fails t, naming every file where re matches, with fix saying
// what to write instead.
func refuse(t *testing.T, files []sourceFile, re *regexp.Regexp, fix string) {
	t.Helper()
	found := where(files, re)
	if len(found) == 0 {
		return
	}
	paths := make([]string, 0, len(found))
	for p, n := range found {
		paths = append(paths, fmt.Sprintf("%s (%d)", p, n))
	}
	slices.Sort(paths)
	t.Errorf("%d matches of %s in:\n  %s\n%s", total(found), re, strings.Join(paths, "\n  "), fix)
}

// searchOptionDecl declares one of the removed per-adapter search options.
var searchOptionDecl = regexp.MustCompile(`(?m)^func (\([^)]*\) )?With(SearchLimit|MinRelativeScore)\b`)

// TestSearchOptionsAreOneSettingsValue keeps the search settings in one
// value: WithSearchLimit and WithMinRelativeScore were declared in five
// packages, each copy documenting defaults and ranges anew.
func TestSearchOptionsAreOneSettingsValue(t *testing.T) {
	refuse(t, moduleFiles(t), searchOptionDecl,
		"the search settings are one discovery.Settings value, given to discovery.New and to each adapter's WithDiscovery")
}

// stringComparator declares a hand-written three-way comparison of
// strings (or of idents, which are strings).
var stringComparator = regexp.MustCompile(`(?m)^func (\([^)]*\) )?compare\w*\(\w+,? (\w+ )?(string|tools\.Ident|Ident)(, \w+ (string|tools\.Ident|Ident))?\) int\b`)

// TestNoHandWrittenStringComparators keeps string ordering to the
// standard library.
func TestNoHandWrittenStringComparators(t *testing.T) {
	const fix = "use strings.Compare (or cmp.Compare for string types such as tools.Ident)"
	refuse(t, handWritten(t), stringComparator, fix)
}

// concatenatedIdent converts a "<toolset>" + "." + "<tool>" concatenation
// (or Sprintf) into an ident instead of asking tools to join it.
var concatenatedIdent = regexp.MustCompile(`\b(Ident|ParseIdent)\((fmt\.Sprintf\("%s\.%s"|[^\n]*\+ ?"\." ?\+)`)

// TestIdentsNotConcatenated keeps the ident format in tools/ident.go: an
// ident is built with tools.NewIdent (validated) or tools.JoinIdent.
func TestIdentsNotConcatenated(t *testing.T) {
	const fix = `build the ident with tools.NewIdent(toolset, tool), or tools.JoinIdent(toolset, tool) where the parts need no validation`
	// This file is left out too: its pattern tests quote what is refused.
	refuse(t, except(handWritten(t), "tools/ident.go", "internal/sourceguard/settings_test.go"), concatenatedIdent, fix)
}

// tierOrder spells the order of the exposure tiers by hand: a switch
// mapping tiers to numbers, one expression comparing a value with several
// tiers, or a case listing several.
var tierOrder = regexp.MustCompile(`case (tools\.)?Exposure(ReadOnly|Staging|Full):\s*return -?\d` +
	`|(==|!=) ?(tools\.)?Exposure(ReadOnly|Staging|Full)\b[^\n]*(==|!=) ?(tools\.)?Exposure(ReadOnly|Staging|Full)\b` +
	`|case [^\n:]*Exposure(ReadOnly|Staging|Full)\b[^\n:]*, [^\n:]*Exposure(ReadOnly|Staging|Full)\b`)

// TestTierOrderOnlyInTools keeps read_only < staging < full in
// tools/annotations.go (Exposure.Rank, Exposure.Covers).
func TestTierOrderOnlyInTools(t *testing.T) {
	const fix = "ask the tier: tools.Exposure.Rank (0 for non-tiers) or tools.Exposure.Covers"
	refuse(t, except(productFiles(t), "tools/annotations.go"), tierOrder, fix)
}

// TestSettingsGuardsSeeTheirPatterns keeps the patterns above honest: each
// matches the code it forbids, as it was written before it was removed.
func TestSettingsGuardsSeeTheirPatterns(t *testing.T) {
	for _, c := range []struct {
		re   *regexp.Regexp
		text string
	}{
		{searchOptionDecl, "func WithSearchLimit(n int) Option {"},
		{searchOptionDecl, "func WithMinRelativeScore(f float64) Option {"},
		{stringComparator, "func compareIdents(a, b tools.Ident) int {"},
		{stringComparator, "func compareStrings(a, b string) int {"},
		{stringComparator, "func (x *T) compare(a string, b string) int {"},
		{concatenatedIdent, `func (c Call) Ident() tools.Ident { return tools.Ident(c.Toolset + "." + c.Tool) }`},
		{concatenatedIdent, `partnerID := tools.Ident(id.Toolset() + "." + spec.Bounds.ContinueWith)`},
		{concatenatedIdent, `id := tools.Ident(fmt.Sprintf("%s.%s", a, b))`},
		{tierOrder, "switch e {\n\tcase tools.ExposureReadOnly:\n\t\treturn 1"},
		{tierOrder, "if tier == tools.ExposureReadOnly || (tier == tools.ExposureStaging && low == tools.ExposureFull) {"},
		{tierOrder, "case c.Tier != tools.ExposureReadOnly && c.Tier != tools.ExposureStaging && c.Tier != tools.ExposureFull:"},
		{tierOrder, "case tools.ExposureStaging, tools.ExposureFull:"},
	} {
		if !c.re.MatchString(c.text) {
			t.Errorf("%s does not match %q", c.re, c.text)
		}
	}
	for _, c := range []struct {
		re   *regexp.Regexp
		text string
	}{
		{searchOptionDecl, "//	WithSearchLimit(n) → WithDiscovery(discovery.Settings{Limit: n})"},
		{stringComparator, "func compareValues(a, b any) int {"},
		{concatenatedIdent, `return tools.JoinIdent(c.Toolset, c.Tool)`},
		{concatenatedIdent, `field, fieldPath := m.key, path+"."+m.key`},
		{tierOrder, "case tools.ExposureReadOnly:\n\t\treturn \"tools.ExposureReadOnly\""},
		{tierOrder, "ReadOnlyHint: spec.Exposure == tools.ExposureReadOnly},"},
	} {
		if c.re.MatchString(c.text) {
			t.Errorf("%s matches %q, which it must allow", c.re, c.text)
		}
	}
}
