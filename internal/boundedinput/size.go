package boundedinput

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units ParseSize reads, the binary ones first: those
// are the units FormatSize writes.
var sizeUnits = []struct {
	name  string
	bytes int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"kB", 1e3},
	{"B", 1},
}

// FormatSize writes n bytes in the largest binary unit it fills: "512 B",
// "64 MiB", "1.5 GiB" (one decimal unless the value is whole).
func FormatSize(n int64) string {
	for _, u := range sizeUnits[:4] {
		if n >= u.bytes {
			if n%u.bytes == 0 {
				return fmt.Sprintf("%d %s", n/u.bytes, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.bytes), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// ParseSize reads a positive size: a number of bytes ("1048576") or a
// number and a unit, binary (KiB, MiB, GiB, TiB) or decimal (KB or kB, MB,
// GB, TB), with or without a space ("64MiB", "1.5 GB"). A fractional size
// is rounded up to a whole byte.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num, mult := t, int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.name); ok {
			num, mult = strings.TrimSpace(rest), u.bytes
			break
		}
	}
	if !decimal(num) {
		return 0, fmt.Errorf("size %q: want a number of bytes or a number and a unit, e.g. 64MiB, 500MB or 1GiB", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	b := v * float64(mult)
	switch {
	case err != nil || b > math.MaxInt64/2:
		return 0, fmt.Errorf("size %q: too large", s)
	case b < 1:
		return 0, fmt.Errorf("size %q: want at least 1 byte", s)
	}
	return int64(math.Ceil(b)), nil
}

// decimal reports whether s is digits with at most one decimal point, and
// at least one digit.
func decimal(s string) bool {
	digits, points := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}
