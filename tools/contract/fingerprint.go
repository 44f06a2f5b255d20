package contract

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/quiver-go/quiver/tools"
)

// FingerprintPrefix starts every fingerprint.
const FingerprintPrefix = "sha256:"

// toolsetContent is the fingerprinted part of a ToolsetDeclaration: all of
// it but the registration time.
type toolsetContent struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Version     string            `json:"version,omitempty"`
	Tools       []ToolDeclaration `json:"tools"`
}

// Fingerprint hashes a toolset declaration: "sha256:" followed by the hex
// SHA-256 of the RFC 8785 canonical JSON of the declaration. The description,
// tags, version and every tool's content count; the registration time does
// not. Tools are hashed sorted by name, each belonging to ts.Name when its
// own toolset is empty, so neither the listing order nor that shorthand
// changes the fingerprint; key order inside schemas never does. Arrays keep
// their order (tags, "required", "enum": reordering them is a change).
// Numbers are compared as IEEE doubles, as RFC 8785 prescribes.
//
// The declaration is hashed as written, not as [Compile] reads it: the
// closing of an input schema root that does not say additionalProperties
// (see Compile) is not part of the hashed form. Fingerprints of existing
// declarations therefore did not change when payloads became closed by
// default, and a root without additionalProperties hashes differently from
// the same root saying "additionalProperties": false, although both compile
// to the same contract.
func Fingerprint(ts ToolsetDeclaration) (string, error) {
	c := toolsetContent{
		Name:        ts.Name,
		Description: ts.Description,
		Tags:        ts.Tags,
		Version:     ts.Version,
		Tools:       slices.Clone(ts.Tools),
	}
	for i := range c.Tools {
		if c.Tools[i].Toolset == "" {
			c.Tools[i].Toolset = ts.Name
		}
	}
	slices.SortStableFunc(c.Tools, func(a, b ToolDeclaration) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Toolset, b.Toolset))
	})
	fp, err := fingerprint(c)
	if err != nil {
		return "", fmt.Errorf("contract: fingerprint toolset %q: %w", ts.Name, err)
	}
	return fp, nil
}

// FingerprintTool hashes one tool declaration the way [Fingerprint] hashes a
// toolset: as written, before [Compile] closes its input schema's root.
func FingerprintTool(d ToolDeclaration) (string, error) {
	fp, err := fingerprint(d)
	if err != nil {
		return "", fmt.Errorf("contract: fingerprint tool %q: %w", tools.JoinIdent(d.Toolset, d.Name), err)
	}
	return fp, nil
}

// fingerprint hashes the canonical JSON of v.
func fingerprint(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return "", fmt.Errorf("canonicalize: %w", err)
	}
	sum := sha256.Sum256(canon)
	return FingerprintPrefix + hex.EncodeToString(sum[:]), nil
}
