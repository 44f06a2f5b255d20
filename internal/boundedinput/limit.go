package boundedinput

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// DefaultLimit is the size limit of an input file when a caller sets none:
// 64 MiB, room for a catalog of tens of thousands of tools.
const DefaultLimit int64 = 64 << 20

// ErrTooLarge is matched (errors.Is) by every *TooLargeError.
var ErrTooLarge = errors.New("input too large")

// TooLargeError reports an input over its size limit.
type TooLargeError struct {
	// Source names the input, e.g. a file path or "stdin".
	Source string
	// Limit is the limit in bytes.
	Limit int64
	// Size is the input's size in bytes when its metadata told it, or 0
	// when it was found too large while reading.
	Size int64
}

// Error says what is too large and by how much, e.g. "big.json is 2.0 GiB,
// over the 64 MiB input limit" or "stdin is over the 64 MiB input limit".
func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("%s is %s, over the %s input limit", e.Source, FormatSize(e.Size), FormatSize(e.Limit))
	}
	return fmt.Sprintf("%s is over the %s input limit", e.Source, FormatSize(e.Limit))
}

// Is reports whether target is ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Open opens the file at path for reading at most limit bytes (limit <= 0
// means DefaultLimit). A regular file larger than the limit is refused
// before it is read; any other file (a pipe, a device such as /dev/zero)
// is cut off by the returned reader, which fails with a *TooLargeError
// when one byte more than the limit arrives. The caller closes the file.
func Open(path string, limit int64) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := Limit(f, path, limit)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &limitedFile{Reader: r, f: f}, nil
}

// Limit returns a reader of r that fails with a *TooLargeError, naming
// source, when r holds more than limit bytes (limit <= 0 means
// DefaultLimit). When r is a regular file (it has a Stat method, as
// *os.File does), its size is checked first and an oversized file is
// refused at once.
func Limit(r io.Reader, source string, limit int64) (io.Reader, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if s, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
			return nil, &TooLargeError{Source: source, Limit: limit, Size: fi.Size()}
		}
	}
	return &reader{r: r, source: source, limit: limit, left: limit}, nil
}

// reader passes through at most limit bytes of r.
type reader struct {
	r      io.Reader
	source string
	limit  int64
	left   int64 // bytes still allowed
	err    error // sticky *TooLargeError
}

// Read implements io.Reader.
func (l *reader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if l.left == 0 {
		// One byte more tells a source that ends here from one that goes on.
		var one [1]byte
		for {
			n, err := l.r.Read(one[:])
			if n > 0 {
				l.err = &TooLargeError{Source: l.source, Limit: l.limit}
				return 0, l.err
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// limitedFile is a limited reader that closes its file.
type limitedFile struct {
	io.Reader
	f *os.File
}

// Close closes the file.
func (l *limitedFile) Close() error { return l.f.Close() }
