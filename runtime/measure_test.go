package runtime

import (
	"os"
	goruntime "runtime"
)

// measuring reports whether hand-run measurements were asked for.
func measuring() bool { return os.Getenv("QUIVER_MEASURE") != "" }

// heapAlloc returns the bytes allocated so far (cumulative, not live).
func heapAlloc() uint64 {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.TotalAlloc
}
