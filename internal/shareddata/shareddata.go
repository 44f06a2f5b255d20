package shareddata

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvVar names the environment variable that overrides the data location.
const EnvVar = "QUIVER_SHARED_DATA"

// ModulePath is the module whose root anchors the default location.
const ModulePath = "github.com/quiver-go/quiver"

// ErrNotFound is wrapped by Dir's errors when the data folder is absent.
var ErrNotFound = errors.New("shareddata: shared data not found")

// Dir returns the shared data folder: the value of QUIVER_SHARED_DATA when
// set, otherwise <module root>/../shared/data. It fails, wrapping
// ErrNotFound, when that folder does not exist or is not a directory.
func Dir() (string, error) {
	dir, _, err := locate()
	if err != nil {
		return "", err
	}
	if err := checkDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// Require returns the shared data folder or skips tb when it is absent, with
// a message saying where it looked and how to point it elsewhere. When
// QUIVER_SHARED_DATA is set but names no directory, tb fails instead: an
// explicit setting that is wrong is a broken configuration, not absent data.
func Require(tb testing.TB) string {
	tb.Helper()
	dir, fromEnv, err := locate()
	if err != nil {
		tb.Skipf("shared data not found: %v; set %s to .../shared/data to run this benchmark", err, EnvVar)
		return ""
	}
	if err := checkDir(dir); err != nil {
		if fromEnv {
			tb.Fatalf("%s is set but: %v", EnvVar, err)
			return ""
		}
		tb.Skipf("shared data not found at %s; set %s to .../shared/data to run this benchmark", dir, EnvVar)
		return ""
	}
	return dir
}

// locate returns the candidate folder, and whether it came from EnvVar,
// without checking that it exists.
func locate() (dir string, fromEnv bool, err error) {
	if v, ok := os.LookupEnv(EnvVar); ok && v != "" {
		abs, err := filepath.Abs(v)
		if err != nil {
			return "", true, fmt.Errorf("shareddata: %s=%q: %w", EnvVar, v, err)
		}
		return abs, true, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false, fmt.Errorf("shareddata: %w", err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return "", false, err
	}
	return filepath.Join(filepath.Dir(root), "shared", "data"), false, nil
}

// moduleRoot walks up from dir to the directory whose go.mod declares
// ModulePath.
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
		return "", fmt.Errorf("shareddata: %w", err)
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
		return "", fmt.Errorf("shareddata: reading %s: %w", path, err)
	}
	return "", nil
}

// checkDir reports, wrapping ErrNotFound, that dir is not a directory.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w at %s", ErrNotFound, dir)
	case err != nil:
		return fmt.Errorf("%w at %s: %w", ErrNotFound, dir, err)
	case !fi.IsDir():
		return fmt.Errorf("%w at %s: not a directory", ErrNotFound, dir)
	}
	return nil
}
