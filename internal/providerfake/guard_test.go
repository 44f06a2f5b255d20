package providerfake_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyTestsImportIt fails if a non-test package of the module depends
// on this one, even transitively: the fake is for tests, and an
// application importing Quiver must not link a provider stand-in.
func TestOnlyTestsImportIt(t *testing.T) {
	const self = "github.com/quiver-go/quiver/internal/providerfake"
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
		if pkg == self {
			continue
		}
		for _, dep := range deps {
			if dep == self {
				t.Errorf("%s depends on %s: only tests may", pkg, self)
			}
		}
	}
	if listed < 10 {
		t.Fatalf("go list named %d packages: the check saw too little of the module\n%s", listed, out)
	}
}
