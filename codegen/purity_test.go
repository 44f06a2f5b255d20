package codegen_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestGeneratedSpecPackageStaysPure fails if the committed toolset package
// of examples/records (types, codecs, specs, Decode, ToolSchemas, Toolset,
// SchemaFingerprint) depends, even transitively, on anything that runs
// agents or reaches a provider: a provider publishes its declarations and a
// consumer decodes its payloads without pulling a runtime in. Generated
// agent packages, executors and BindTo adapters may import the runtime; the
// spec package may not.
func TestGeneratedSpecPackageStaysPure(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	const pkg = "github.com/quiver-go/quiver/examples/records/gen/toolsets/workspace"
	// Each is forbidden itself and with everything under it.
	forbidden := []string{
		"github.com/quiver-go/quiver/runtime",
		"github.com/quiver-go/quiver/engine",
		"github.com/quiver-go/quiver/planner",
		"github.com/quiver-go/quiver/model",
		"github.com/openai",
		"github.com/anthropics",
		"go.temporal.io",
		"github.com/redis",
	}
	cmd := exec.Command(gobin, "list", "-deps", pkg)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	deps := strings.Fields(string(out))
	// The listing must be the package's: it reaches the contract it
	// publishes in.
	if !slices.Contains(deps, pkg) || !slices.Contains(deps, "github.com/quiver-go/quiver/tools/contract") {
		t.Fatalf("go list -deps %s lists neither the package nor tools/contract:\n%s", pkg, out)
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("%s depends on %s: a generated spec package must stay free of runtime, engine, planner, model-adapter and SDK packages", pkg, dep)
			}
		}
	}
}
