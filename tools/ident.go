package tools

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrInvalidIdent is wrapped by every error about a malformed [Ident].
var ErrInvalidIdent = errors.New("tools: invalid ident")

// Ident names a tool globally as "<toolset>.<tool>", for example
// "docs.search.query" (toolset "docs.search", tool "query"). Toolset names may
// contain dots and tool names may not, so an ident splits at its last dot.
// Everything but model-facing text uses idents; models read wire names (see
// [WireNames]).
type Ident string

// IdentError reports why a string is not a valid [Ident]. It matches
// [ErrInvalidIdent] with [errors.Is].
type IdentError struct {
	// Ident is the rejected text.
	Ident string
	// Problems lists every rule the text breaks, each saying how to fix it.
	Problems []string
}

// Error returns `tools: ident "<text>": <problem>; <problem>...`.
func (e *IdentError) Error() string {
	return fmt.Sprintf("tools: ident %q: %s", e.Ident, strings.Join(e.Problems, "; "))
}

// Is reports whether target is [ErrInvalidIdent].
func (e *IdentError) Is(target error) bool { return target == ErrInvalidIdent }

// NewIdent joins a toolset name and a tool name into an [Ident] and validates
// it. Unlike [ParseIdent] it rejects a tool name containing a dot instead of
// splitting it.
func NewIdent(toolset, tool string) (Ident, error) {
	id := JoinIdent(toolset, tool)
	if problems := identProblems(toolset, tool); len(problems) > 0 {
		return "", &IdentError{Ident: string(id), Problems: problems}
	}
	return id, nil
}

// JoinIdent joins a toolset name and a tool name into an [Ident] without
// validating them: it is the one place an ident is spelled
// "<toolset>.<tool>". Use it where the parts were validated already (an
// expression of a design that validated, a call the registry accepted), or
// where an ident is needed for a message about parts that may be wrong;
// use [NewIdent] to validate, or Validate the result later.
func JoinIdent(toolset, tool string) Ident { return Ident(toolset + "." + tool) }

// ParseIdent validates s as an [Ident], splitting it at its last dot.
func ParseIdent(s string) (Ident, error) {
	id := Ident(s)
	if err := id.Validate(); err != nil {
		return "", err
	}
	return id, nil
}

// Toolset returns the part before the last dot, or "" when there is no dot.
func (id Ident) Toolset() string {
	if i := strings.LastIndexByte(string(id), '.'); i >= 0 {
		return string(id[:i])
	}
	return ""
}

// Tool returns the part after the last dot, or the whole ident when there is
// no dot.
func (id Ident) Tool() string {
	return string(id[strings.LastIndexByte(string(id), '.')+1:])
}

// String returns the ident as text.
func (id Ident) String() string { return string(id) }

// Validate reports every rule the ident breaks: it needs a dot, a non-empty
// toolset without empty dot segments, a non-empty tool, and no whitespace,
// control characters or invalid UTF-8 anywhere. The error is an *IdentError.
func (id Ident) Validate() error {
	s := string(id)
	if !strings.Contains(s, ".") {
		problems := []string{`it has no dot: write "<toolset>.<tool>", e.g. "docs.search"`}
		problems = append(problems, runeProblems("ident", s)...)
		return &IdentError{Ident: s, Problems: problems}
	}
	if problems := identProblems(id.Toolset(), id.Tool()); len(problems) > 0 {
		return &IdentError{Ident: s, Problems: problems}
	}
	return nil
}

// identProblems checks a toolset and a tool name as parts of an ident.
func identProblems(toolset, tool string) []string {
	var problems []string
	switch {
	case toolset == "":
		problems = append(problems, "the toolset name is empty: write \"<toolset>.<tool>\"")
	case strings.HasPrefix(toolset, ".") || strings.HasSuffix(toolset, ".") || strings.Contains(toolset, ".."):
		problems = append(problems, fmt.Sprintf("toolset name %q has an empty dot segment: remove leading, trailing or doubled dots", toolset))
	}
	problems = append(problems, runeProblems("toolset name", toolset)...)
	switch {
	case tool == "":
		problems = append(problems, "the tool name is empty: write \"<toolset>.<tool>\"")
	case strings.Contains(tool, "."):
		problems = append(problems, fmt.Sprintf("tool name %q contains a dot: tool names cannot contain dots (toolset names can)", tool))
	}
	problems = append(problems, runeProblems("tool name", tool)...)
	return problems
}

// runeProblems reports invalid UTF-8, whitespace and control characters in s.
func runeProblems(what, s string) []string {
	var problems []string
	if !utf8.ValidString(s) {
		problems = append(problems, what+" is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsSpace(r) {
			problems = append(problems, fmt.Sprintf("%s %q contains whitespace: use '_' or '-' instead", what, s))
			break
		}
	}
	for _, r := range s {
		if unicode.IsControl(r) || (r >= 0x200b && r <= 0x200f) || r == 0xfeff {
			problems = append(problems, fmt.Sprintf("%s %q contains the control character %U: remove it", what, s, r))
			break
		}
	}
	return problems
}
