package dsl_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDeclarationsStayPure fails if the design language imports, even
// transitively, anything that runs agents or reaches a provider: design
// packages are shared with tools that must not pull a runtime in (seed 004:
// "the declaration list must contain zero runtime imports"). The code
// generator that dsl imports (plugin.go) is checked with it: it must stay
// free of them too.
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

// TestDSLImportsTheGeneratorWithoutACycle: package dsl imports the code
// generator (so a design needs no import of its own to get Quiver's code),
// and the generator never imports dsl back. The generator is a build
// dependency of goa gen's program; TestDeclarationsStayPure checks it adds
// no runtime package to the declarations.
func TestDSLImportsTheGeneratorWithoutACycle(t *testing.T) {
	const dsl, gen = "github.com/quiver-go/quiver/dsl", "github.com/quiver-go/quiver/codegen"
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	if !slices.Contains(deps(dsl), gen) {
		t.Errorf("%s does not depend on %s: a design importing only the DSLs would get no Quiver code from goa gen", dsl, gen)
	}
	if slices.Contains(deps(gen), dsl) {
		t.Errorf("%s depends on %s: the generator must work from the expressions (package expr) alone", gen, dsl)
	}
}
