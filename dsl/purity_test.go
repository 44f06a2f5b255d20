package dsl_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeclarationsStayPure fails if the design language imports, even
// transitively, anything that runs agents or reaches a provider: design
// packages are shared with tools that must not pull a runtime in (seed 004:
// "the declaration list must contain zero runtime imports").
func TestDeclarationsStayPure(t *testing.T) {
	forbidden := []string{
		"github.com/quiver-go/quiver/runtime",
		"github.com/quiver-go/quiver/engine",
		"github.com/quiver-go/quiver/planner",
		"github.com/quiver-go/quiver/model/",
		"github.com/openai/",
		"github.com/anthropics/",
		"go.temporal.io/",
		"github.com/redis/",
	}
	for _, pkg := range []string{"github.com/quiver-go/quiver/dsl", "github.com/quiver-go/quiver/expr"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s: declarations must stay free of runtime, engine, model-adapter and SDK packages", pkg, dep)
				}
			}
		}
	}
}
