package providerfake_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// testOnly are the module's packages for tests only: a provider stand-in,
// real registries and redis-servers started for a test, the examples'
// checks. An application importing Quiver must link none of them.
var testOnly = []string{
	"github.com/quiver-go/quiver/internal/providerfake",
	"github.com/quiver-go/quiver/internal/registrytest",
	"github.com/quiver-go/quiver/internal/redistest",
	"github.com/quiver-go/quiver/internal/examplecheck",
}

// TestOnlyTestsImportIt fails if a non-test package of the module depends
// on one of the testOnly packages, even transitively.
func TestOnlyTestsImportIt(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	// .Deps, like go list -deps, follows the non-test imports only.
	out, err := exec.Command(gobin, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "github.com/quiver-go/quiver/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	listed := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		listed++
		pkg, deps := fields[0], fields[1:]
		if slices.Contains(testOnly, pkg) {
			continue
		}
		for _, dep := range deps {
			if slices.Contains(testOnly, dep) {
				t.Errorf("%s depends on %s: only tests may", pkg, dep)
			}
		}
	}
	if listed < 10 {
		t.Fatalf("go list named %d packages: the check saw too little of the module\n%s", listed, out)
	}
}
