package main

import (
	"testing"

	"github.com/quiver-go/quiver/internal/examplecheck"
)

// regenerate is the command that rewrites the committed output, run from
// the repository root.
const regenerate = "go run goa.design/goa/v3/cmd/goa gen github.com/quiver-go/quiver/examples/records/design -o examples/records && go generate ./internal/catalogs"

// TestGeneratedCodeIsCurrent checks that gen/ and AGENTS_QUICKSTART.md are
// what goa gen writes from the design now, and that they build.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	examplecheck.GeneratedCurrent(t, "github.com/quiver-go/quiver/examples/records/design", "examples/records", regenerate)
}
