package sourceguard

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// modelFacing are the texts a model reads about one tool call. Each is
// written once, in toolcall/messages.go: the runtime and the MCP server
// copied four of them word for word before the pipeline was one.
var modelFacing = []string{
	"The arguments do not match the tool's schema; fix them and call again:",
	"Not run: the arguments were refused; fix them and call again:",
	"Not run: the arguments are not valid JSON",
	"The call lacks required fields:",
	"The tool failed: ",
	"The tool returned no result.",
	"The tool returned a result that breaks its own contract: ",
	"Bounded tool %s returned",
	"is not available any more; nothing ran.",
	"did not finish within its time limit",
	"The tool could not run: ",
	"a result that is not an object with its bounds fields",
	"count in its result",
	"as many calls open (queued or running) as you may have at once",
}

// TestModelFacingMessagesAreWrittenOnce fails when a tool call's
// model-facing message appears in hand-written non-test code anywhere but
// toolcall/messages.go, or not exactly once there.
func TestModelFacingMessagesAreWrittenOnce(t *testing.T) {
	files := withoutComments(productFiles(t))
	for _, msg := range modelFacing {
		found := where(files, regexp.MustCompile(regexp.QuoteMeta(msg)))
		if len(found) != 1 || found["toolcall/messages.go"] != 1 {
			t.Errorf("%q is written in %v: write it once, in toolcall/messages.go, and call its constructor", msg, found)
		}
	}
}

// withoutComments returns files with their comment-only lines blanked:
// documentation may quote a message.
func withoutComments(files []sourceFile) []sourceFile {
	out := make([]sourceFile, len(files))
	for i, f := range files {
		lines := strings.Split(f.Text, "\n")
		for j, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "//") {
				lines[j] = ""
			}
		}
		out[i] = sourceFile{Path: f.Path, Text: strings.Join(lines, "\n")}
	}
	return out
}

// removedCopies are declarations the tool-call pipeline made one: each
// pattern must match nowhere in hand-written code.
var removedCopies = []struct {
	re  *regexp.Regexp
	fix string
	// under, when set, limits the check to files under these folders.
	under []string
}{
	{regexp.MustCompile(`(?m)^func (\([^)]*\) )?(shapeResult|validatePayload|routeServerData|modelBounds|payloadFailure|failureJSON|toolError)\(`),
		"the pipeline's steps are toolcall.Shape, CheckPayload, RouteServerData, ModelBounds, RefusedPayload and Failure.JSON", nil},
	{regexp.MustCompile(`(?m)^func (\([^)]*\) )?shape\(spec tools\.ToolSpec`), "MCP answers with toolcall.Run's outcome", nil},
	{regexp.MustCompile(`(?m)^func (CallRegistry|registryFailure)\(|^func BoundedResult\(spec`),
		"a registry call is registry.CallTool; bounds in a result are toolcall.BoundsFromResult", nil},
	{regexp.MustCompile(`(?m)^func (\([^)]*\) )?objectMembers\(`), "JSON object members are internal/jsonobj.Members", nil},
	{regexp.MustCompile(`(?m)^type (ToolExecutor|ToolExecutorFunc|ToolCall|ToolResult|ToolFailure|RecoveryAction|Bounds|ServerData) (interface|struct|func|string)`),
		"the call types are toolcall's (runtime and planner alias them)", []string{"runtime/", "planner/", "mcp/", "registry/"}},
	{regexp.MustCompile(`contract\.Fingerprint\(ts\.Declaration\)`), "", nil},
}

// TestPipelineCopiesStayRemoved fails when a removed copy comes back.
func TestPipelineCopiesStayRemoved(t *testing.T) {
	files := handWritten(t)
	for _, c := range removedCopies {
		found := where(files, c.re)
		for p := range found {
			if len(c.under) > 0 && !slices.ContainsFunc(c.under, func(dir string) bool { return strings.HasPrefix(p, dir) }) {
				delete(found, p)
			}
		}
		if c.fix == "" {
			found = where(productFiles(t), c.re)
			// The one registry reader checks fingerprints; nobody else.
			if len(found) != 1 || found["registry/reader.go"] != 1 {
				t.Errorf("%s in %v: a registry catalog is read by registry.Reader only", c.re, found)
			}
			continue
		}
		if len(found) > 0 {
			t.Errorf("%s in %v: %s", c.re, found, c.fix)
		}
	}
}

// TestCallPackagesImportRules checks the layout's import rules of the
// tool-call room: mcp does not depend on runtime, and toolcall on none of
// the packages that run calls.
func TestCallPackagesImportRules(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	const mod = "github.com/quiver-go/quiver/"
	rules := map[string][]string{
		"mcp":          {"runtime", "engine", "planner"},
		"mcp/upstream": {"runtime", "engine", "planner"},
		"mcp/gateway":  {"runtime", "engine", "planner"},
		"toolcall":     {"runtime", "mcp", "registry", "engine", "planner", "model", "catalog"},
	}
	for pkg, forbidden := range rules {
		out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}", mod+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, mod+"tools") {
			t.Fatalf("go list -deps %s named no %stools: the check saw too little\n%s", pkg, mod, out)
		}
		for _, f := range forbidden {
			for _, d := range deps {
				if d == mod+f || strings.HasPrefix(d, mod+f+"/") {
					t.Errorf("%s depends on %s: it must not (docs/DESIGN.md, layout)", pkg, d)
				}
			}
		}
	}
}
