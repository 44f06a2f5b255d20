package guides

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/examplecheck"
)

// replacePlaceholder is the path the getting-started guide tells readers to
// replace with their checkout's; the test puts the repository's root there.
const replacePlaceholder = "/path/to/your/quiver/checkout"

// notRunMarker starts the line after which a guide's commands are shown
// but not run.
const notRunMarker = "<!-- not run:"

// TestGettingStarted runs docs/getting-started.md as a reader would, in a
// new module outside the repository, offline: every module it needs must
// already be in the module cache, as every module the repository's go.mod
// lists is once the repository has been built.
func TestGettingStarted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the guide's program in a new module: skipped in -short mode")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	root := examplecheck.ModuleRoot(t, "internal/guides")
	const guidePath = "docs/getting-started.md"
	text, err := os.ReadFile(filepath.Join(root, guidePath))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parse(string(text))
	if err != nil {
		t.Fatalf("%s: %v", guidePath, err)
	}
	checkGettingStarted(t, root, guidePath, blocks)
	loadModuleGraph(t, root)
	run(t, root, guidePath, blocks)
}

// loadModuleGraph makes sure the module cache holds the go.mod file of
// every module in the repository's module graph. A new module's go get
// reads them all (and so does goa gen, which runs go get), while building
// the repository reads only those of the modules it compiles: a cache that
// only built the repository, as CI's has, lacks some (the go.mod files of
// gopkg.in/check.v1, of the older go-logr/logr that go-logr/stdr requires,
// …). go list -m all loads that graph in the repository, from the cache or,
// the first time, from the module proxy, as every example's goa gen test
// does; the guide then runs with the proxy off, so it can need no module
// the repository's graph does not have.
func loadModuleGraph(t *testing.T, root string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", "list", "-m", "all")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("cannot load the repository's module graph (no module proxy?): %v\n%s", err, out)
	}
	t.Logf("go list -m all in the repository (%s)", time.Since(start).Round(time.Millisecond))
}

// checkGettingStarted checks what running the guide cannot show: that it
// still tells the reader to replace the module path, that the goa version
// it installs is the one go.mod requires, and that its design does not
// import Quiver's generator (the DSL does).
func checkGettingStarted(t *testing.T, root, guidePath string, blocks []block) {
	t.Helper()
	var commands, design string
	for _, b := range blocks {
		switch {
		case b.lang == "sh":
			commands += b.body
		case b.title == "design/design.go":
			design = b.body
		}
	}
	if !strings.Contains(commands, "-replace github.com/quiver-go/quiver="+replacePlaceholder) {
		t.Errorf("%s: no command replaces github.com/quiver-go/quiver with %s", guidePath, replacePlaceholder)
	}
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^\s*goa\.design/goa/v3 (v\S+)`).FindSubmatch(goMod)
	got := regexp.MustCompile(`goa\.design/goa/v3/cmd/goa@(v\S+)`).FindStringSubmatch(commands)
	switch {
	case want == nil:
		t.Errorf("go.mod requires no goa.design/goa/v3")
	case got == nil:
		t.Errorf("%s: no command gets goa.design/goa/v3/cmd/goa at a version", guidePath)
	case got[1] != string(want[1]):
		t.Errorf("%s gets goa %s; go.mod requires %s: give the guide go.mod's version", guidePath, got[1], want[1])
	}
	if design == "" {
		t.Errorf("%s: no design/design.go block", guidePath)
	}
	if strings.Contains(design, `"github.com/quiver-go/quiver/codegen"`) {
		t.Errorf("%s: the design imports github.com/quiver-go/quiver/codegen; the DSL imports it already", guidePath)
	}
}

// run plays the guide's blocks in a temporary folder.
func run(t *testing.T, root, guidePath string, blocks []block) {
	t.Helper()
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cwd := work
	var (
		last        *block // the last command run
		lastOut     string
		lastChecked bool
		commands    int
		notRunFiles int
	)
	for i := range blocks {
		b := &blocks[i]
		where := fmt.Sprintf("%s:%d", guidePath, b.line)
		switch {
		case b.title != "":
			path := filepath.Join(cwd, filepath.FromSlash(b.title))
			if !filepath.IsLocal(filepath.FromSlash(b.title)) {
				t.Fatalf("%s: file %q is not a relative path inside the current folder", where, b.title)
			}
			if b.lang == "go" {
				if formatted, err := format.Source([]byte(b.body)); err != nil {
					t.Errorf("%s: %s does not parse: %v", where, b.title, err)
				} else if !bytes.Equal(formatted, []byte(b.body)) {
					t.Errorf("%s: %s is not gofmt'ed; gofmt writes:\n%s", where, b.title, formatted)
				}
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
				t.Fatal(err)
			}
			if b.notRun {
				notRunFiles++
			}
		case b.lang == "sh" && !b.notRun:
			if last != nil && !lastChecked {
				// Only the last command may print nothing the guide shows:
				// the reader needs to see what every step before it did…
				// unless it prints nothing at all.
				if strings.TrimSpace(lastOut) != "" {
					t.Errorf("%s:%d: the guide shows no output for a command that prints:\n%s", guidePath, last.line, lastOut)
				}
			}
			cwd, lastOut = runShell(t, root, work, cwd, where, b.body)
			last, lastChecked = b, false
			commands++
		case b.lang == "text" && !b.notRun:
			if last == nil {
				t.Fatalf("%s: output block before any command", where)
			}
			if lastChecked {
				t.Fatalf("%s: a second output block for the command at line %d", where, last.line)
			}
			if got, want := strings.TrimSpace(lastOut), strings.TrimSpace(b.body); got != want {
				t.Errorf("%s: the command at line %d printed\n%s\nthe guide shows\n%s", where, last.line, got, want)
			}
			lastChecked = true
		}
	}
	if commands == 0 {
		t.Fatalf("%s: no command", guidePath)
	}
	if !lastChecked {
		t.Errorf("%s:%d: the guide shows no output for its last command", guidePath, last.line)
	}
	if notRunFiles > 0 {
		// The code after the marker must compile where the reader would
		// build it: go vet type-checks it (and vets it) without the link
		// a build would spend most of its time on.
		_, _ = runShell(t, root, work, cwd, guidePath+" (the code after the not-run marker)", "go vet .")
	}
}

// runShell runs script with bash in dir and returns the folder it ended in
// (inside work) and its standard output.
func runShell(t *testing.T, root, work, dir, where, script string) (string, string) {
	t.Helper()
	goFlagsOnce.Do(func() {
		// The flags the user's go env sets, kept: setting GOFLAGS in the
		// environment hides the go env file's.
		out, err := exec.Command("go", "env", "GOFLAGS").Output()
		if err == nil {
			goFlags = strings.TrimSpace(string(out))
		}
	})
	cwdFile := filepath.Join(t.TempDir(), "cwd")
	script = strings.ReplaceAll(script, replacePlaceholder, root)
	full := "set -euo pipefail\n" + script + "\npwd -P > '" + cwdFile + "'\n"
	cmd := exec.CommandContext(t.Context(), "bash", "-c", full)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		// Offline: the module cache must hold every module the guide
		// needs, as the repository's build leaves it.
		"GOPROXY=off",
		"GOSUMDB=off",
		"GOTOOLCHAIN=local",
		"GOWORK=off",
		// As a reader runs it: a missing go get is an error, not a
		// requirement the go command adds by itself.
		"GOFLAGS="+strings.TrimSpace(goFlags+" -mod=readonly"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s: %s (%s)", where, firstLine(script), time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("%s: %v\n%s\nstdout:\n%s\nstderr:\n%s", where, err, script, stdout.String(), stderr.String())
	}
	b, err := os.ReadFile(cwdFile)
	if err != nil {
		t.Fatal(err)
	}
	cwd := strings.TrimSpace(string(b))
	if cwd != work && !strings.HasPrefix(cwd, work+string(filepath.Separator)) {
		t.Fatalf("%s: the commands left the guide's folder for %s", where, cwd)
	}
	return cwd, stdout.String()
}

var (
	goFlagsOnce sync.Once
	goFlags     string
)

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// block is one fenced code block of a guide.
type block struct {
	line   int    // of the opening fence, from 1
	lang   string // the info string's first word
	title  string // its title="…", if any
	body   string
	notRun bool // after the not-run marker
}

var titleAttr = regexp.MustCompile(`\btitle="([^"]+)"`)

// parse returns the fenced code blocks of a Markdown text: fences of three
// backquotes at the start of a line.
func parse(text string) ([]block, error) {
	var (
		blocks []block
		cur    *block
		body   strings.Builder
		notRun bool
	)
	for i, line := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, notRunMarker):
			notRun = true
		case cur == nil && strings.HasPrefix(line, "```"):
			info := strings.TrimSpace(strings.TrimPrefix(line, "```"))
			cur = &block{line: i + 1, notRun: notRun}
			if fields := strings.Fields(info); len(fields) > 0 {
				cur.lang = fields[0]
			}
			if m := titleAttr.FindStringSubmatch(info); m != nil {
				cur.title = m[1]
			}
			body.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.body = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the code block is not closed", cur.line)
	}
	return blocks, nil
}
