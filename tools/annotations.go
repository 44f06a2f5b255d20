package tools

import (
	"fmt"
	"strings"
)

// Audience says who consumes a server-data entry.
type Audience string

// The server-data audiences.
const (
	// AudienceTimeline marks data persisted and eligible for observer-facing
	// projections (timeline cards, charts, tables). It is the DSL default.
	AudienceTimeline Audience = "timeline"
	// AudienceInternal marks a tool-composition attachment: neither persisted
	// nor rendered.
	AudienceInternal Audience = "internal"
	// AudienceEvidence marks provenance or audit references, persisted apart
	// from timeline cards.
	AudienceEvidence Audience = "evidence"
)

// Valid reports whether a is one of the declared audiences.
func (a Audience) Valid() bool {
	return a == AudienceTimeline || a == AudienceInternal || a == AudienceEvidence
}

// ServerDataSpec declares typed server-only output emitted with a tool
// result. Server data is never sent to model providers.
type ServerDataSpec struct {
	// Kind identifies the data, e.g. "metrics.time_series"; unique per tool.
	Kind string
	// Audience routes the data downstream.
	Audience Audience
	// Schema describes the data.
	Schema TypeSpec
	// FromMethodResultField names the bound method's result field the data is
	// projected from, or "".
	FromMethodResultField string
}

// Clone returns a deep copy of s.
func (s ServerDataSpec) Clone() ServerDataSpec {
	s.Schema = s.Schema.Clone()
	return s
}

// The canonical model-visible fields a bounded result carries, projected by
// the runtime from the tool's reported bounds. Tool result types must not
// declare them themselves.
const (
	// BoundsFieldReturned is the number of items returned (required, integer).
	BoundsFieldReturned = "returned"
	// BoundsFieldTruncated tells whether the result was cut (required, boolean).
	BoundsFieldTruncated = "truncated"
	// BoundsFieldTotal is the size of the full data set (optional, integer).
	BoundsFieldTotal = "total"
	// BoundsFieldRefinementHint tells the model how to narrow the query
	// (optional, string).
	BoundsFieldRefinementHint = "refinement_hint"
	// BoundsFieldNextCursor is the default name of the projected next-page
	// cursor (optional, string), exposed only by a direct Cursor contract.
	BoundsFieldNextCursor = "next_cursor"
)

// BoundsSpec declares that a tool's result is a bounded view of a larger
// data set (BoundedResult in the DSL).
type BoundsSpec struct {
	// Cursor is the payload field carrying the opaque next-page cursor, or "".
	Cursor string `json:"cursor,omitempty"`
	// NextCursor is the projected result field holding the next page's
	// cursor for a direct [BoundsSpec.Cursor] contract (usually
	// [BoundsFieldNextCursor]), or "". It requires Cursor and excludes
	// [BoundsSpec.ContinueWith].
	NextCursor string `json:"next_cursor,omitempty"`
	// ContinueWith is the bare name of a tool in the same toolset that
	// continues the listing: the runtime keeps the cursor and offers that
	// tool as an argumentless action. "" for none.
	ContinueWith string `json:"continue_with,omitempty"`
}

// problems reports the spec's internal inconsistencies.
func (b BoundsSpec) problems() []string {
	var out []string
	if b.NextCursor != "" && b.Cursor == "" {
		out = append(out, fmt.Sprintf("bounds: next cursor field %q needs a payload cursor field: set Cursor", b.NextCursor))
	}
	if b.NextCursor != "" && b.ContinueWith != "" {
		out = append(out, "bounds: NextCursor exposes the cursor to the model and ContinueWith keeps it in the runtime: declare only one")
	}
	switch b.NextCursor {
	case BoundsFieldReturned, BoundsFieldTruncated, BoundsFieldTotal, BoundsFieldRefinementHint:
		out = append(out, fmt.Sprintf("bounds: next cursor field %q is already a canonical bounds field: use %q", b.NextCursor, BoundsFieldNextCursor))
	}
	for _, f := range [...]struct{ what, v string }{{"cursor field", b.Cursor}, {"next cursor field", b.NextCursor}} {
		if f.v != "" && strings.TrimSpace(f.v) != f.v {
			out = append(out, fmt.Sprintf("bounds: %s %q has surrounding whitespace", f.what, f.v))
		}
	}
	if c := b.ContinueWith; c != "" {
		if strings.Contains(c, ".") || len(runeProblems("", c)) > 0 {
			out = append(out, fmt.Sprintf("bounds: continue-with tool %q must be the bare name of a tool in the same toolset (no dots or whitespace)", c))
		}
	}
	return out
}

// ConfirmationSpec requires explicit out-of-band approval before a tool runs.
// Both templates are Go text/template strings over the payload's JSON names
// ({{ .key }}), executed with missingkey=error and [TemplateFuncs].
type ConfirmationSpec struct {
	// Title is the approval request's title.
	Title string `json:"title,omitempty"`
	// PromptTemplate renders the question shown to the approver.
	PromptTemplate string `json:"prompt_template,omitempty"`
	// DeniedResultTemplate renders the JSON tool result the model receives
	// when the call is denied.
	DeniedResultTemplate string `json:"denied_result_template,omitempty"`
}

// Exposure is a tool's MCP exposure tier: the scope an outside agent needs
// to call it. The zero value means not declared.
type Exposure string

// The MCP exposure tiers.
const (
	// ExposureReadOnly exposes the tool to read-only scopes.
	ExposureReadOnly Exposure = "read_only"
	// ExposureStaging exposes the tool to scopes that may write to a
	// reviewable staging area.
	ExposureStaging Exposure = "staging"
	// ExposureFull exposes the tool only to full scopes.
	ExposureFull Exposure = "full"
	// ExposureExcluded never exposes the tool over MCP.
	ExposureExcluded Exposure = "excluded"
)

// Valid reports whether e is a declared tier or the zero value.
func (e Exposure) Valid() bool {
	switch e {
	case "", ExposureReadOnly, ExposureStaging, ExposureFull, ExposureExcluded:
		return true
	}
	return false
}

// Rank orders the client tiers: 1 for [ExposureReadOnly], 2 for
// [ExposureStaging], 3 for [ExposureFull], and 0 for anything that is not a
// tier a client can hold ([ExposureExcluded], the zero value, unknown
// text). A higher tier is served everything a lower one is; use Rank to
// tell a tier from a non-tier (Rank() > 0) and to pick the lowest or
// highest of several tiers. It is the only place the order is written.
func (e Exposure) Rank() int {
	switch e {
	case ExposureReadOnly:
		return 1
	case ExposureStaging:
		return 2
	case ExposureFull:
		return 3
	}
	return 0
}

// Covers reports whether a client of tier e is served tools needing
// other: both are tiers (Rank() > 0) and e ranks at least as high. A
// non-tier covers nothing and is covered by nothing, so an excluded or
// undeclared tool is served to no client through Covers: map an
// undeclared tool to the tier it defaults to first.
func (e Exposure) Covers(other Exposure) bool {
	r, o := e.Rank(), other.Rank()
	return r > 0 && o > 0 && r >= o
}
