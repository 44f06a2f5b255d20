package main

import (
	"runtime"
	"runtime/debug"
)

// develVersion is the module version of a binary built from a checkout
// rather than installed at a tagged version.
const develVersion = "(devel)"

// version returns what quiver --version prints after the command's name:
// the module version the binary was built from and the Go version that
// built it, e.g. "v0.4.0 go1.26.0" or "(devel) go1.26.0".
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return versionOf(nil)
	}
	return versionOf(info)
}

// versionOf formats the version of the build described by info (nil when
// the binary carries no build information).
func versionOf(info *debug.BuildInfo) string {
	mod, goVersion := develVersion, runtime.Version()
	if info != nil {
		if v := info.Main.Version; v != "" {
			mod = v
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
	}
	return mod + " " + goVersion
}
