package benchdata

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ModulePath is the module whose root holds the data folder.
const ModulePath = "github.com/quiver-go/quiver"

// RelDir is the data folder's path relative to the root of ModulePath.
const RelDir = "bench/data"

// ErrNotFound is wrapped by Dir's errors when the data folder is absent.
var ErrNotFound = errors.New("benchdata: benchmark data not found")

// Dir returns the data folder: <module root>/bench/data, the module root
// being the nearest directory at or above the current one whose go.mod
// declares ModulePath. It fails, wrapping ErrNotFound, when there is no such
// root or the folder is not a directory.
func Dir() (string, error) {
	root, err := currentRoot()
	if err != nil {
		return "", err
	}
	return dataDir(root)
}

// Require returns the data folder, or fails tb saying where it looked: the
// data ships in the repository, so its absence from a checkout is a broken
// checkout. Only a module download (the root module's tests run from the
// module cache, as go test all does) skips, since the folder belongs to the
// benchmark module and is not in the root module's download.
func Require(tb testing.TB) string {
	tb.Helper()
	root, err := currentRoot()
	if err == nil {
		var dir string
		if dir, err = dataDir(root); err == nil {
			return dir
		}
		if downloaded(root) {
			tb.Skipf("%v: %s is a module download, which does not hold %s; run this test in a clone of the repository", err, root, RelDir)
			return ""
		}
	}
	tb.Fatalf("%v; the data ships in the repository at %s: run the tests inside a checkout of %s", err, RelDir, ModulePath)
	return ""
}

// currentRoot returns the root of ModulePath at or above the current
// directory.
func currentRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("benchdata: %w", err)
	}
	return moduleRoot(wd)
}

// dataDir returns root's data folder, or an error wrapping ErrNotFound when
// it is not a directory.
func dataDir(root string) (string, error) {
	dir := filepath.Join(root, filepath.FromSlash(RelDir))
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w at %s: %w", ErrNotFound, dir, err)
	case !fi.IsDir():
		return "", fmt.Errorf("%w at %s: not a directory", ErrNotFound, dir)
	}
	return dir, nil
}

// downloaded reports whether root is a module download: the module cache
// names its directories module@version, which a clone's directory is not.
func downloaded(root string) bool {
	return strings.Contains(filepath.Base(root), "@")
}

// moduleRoot walks up from dir to the directory whose go.mod declares
// ModulePath, passing nested modules such as the benchmark module.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; {
		mod, err := modulePathOf(filepath.Join(d, "go.mod"))
		if err != nil {
			return "", err
		}
		if mod == ModulePath {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%w: no go.mod declaring module %s at or above %s", ErrNotFound, ModulePath, dir)
		}
		d = parent
	}
}

// modulePathOf returns the module path declared by the go.mod file at path,
// or "" when there is no such file.
func modulePathOf(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("benchdata: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		if i := strings.Index(rest, "//"); i >= 0 {
			rest = rest[:i]
		}
		return strings.Trim(strings.TrimSpace(rest), `"`+"`"), nil
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("benchdata: reading %s: %w", path, err)
	}
	return "", nil
}
