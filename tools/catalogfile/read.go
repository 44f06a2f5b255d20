package catalogfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/quiver-go/quiver/internal/boundedinput"
)

// DefaultMaxSize is the most bytes a catalog may hold when [ReadOptions]
// sets no limit: 64 MiB, room for tens of thousands of tools.
const DefaultMaxSize = boundedinput.DefaultLimit

// utf8BOM is the byte order mark some editors write at the start of UTF-8
// files; it is skipped.
const utf8BOM = "\xef\xbb\xbf"

// ReadOptions tune how a catalog is read. The zero value reads with the
// defaults: at most [DefaultMaxSize] bytes, every problem an error.
type ReadOptions struct {
	// MaxSize is the most bytes the input may hold; 0 or less means
	// [DefaultMaxSize]. A larger regular file is refused before it is read;
	// other input (a pipe, a device) is read until one byte more than the
	// limit arrives.
	MaxSize int64
	// Lenient reports name problems — a name the runtime or a provider
	// refuses, two names that differ only in case — and input schemas the
	// runtime refuses (an older draft's keywords, for one) in
	// [Catalog.Warnings] instead of failing, so that a third-party catalog
	// can be explored (searched, its tokens counted). Such a catalog does
	// not compile into runtime specs. Every other problem is still an
	// error, as are two tools of the same name or ident.
	Lenient bool
}

// Load reads the catalog file at path with the default options; errors
// name the file as path.
func Load(path string) (*Catalog, error) { return ReadOptions{}.Load(path) }

// Read reads a catalog from r with the default options. source names the
// input in errors and becomes the catalog's Source (a file name, or a
// description such as "workspace.json (embedded)" or "stdin").
func Read(r io.Reader, source string) (*Catalog, error) { return ReadOptions{}.Read(r, source) }

// Load reads the catalog file at path; errors name the file as path.
func (o ReadOptions) Load(path string) (*Catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("catalogfile: %w", err)
	}
	defer f.Close()
	return o.Read(f, path)
}

// Read reads a catalog from r. source names the input in errors and
// becomes the catalog's Source. When r is a regular file (an *os.File),
// its size is checked before anything is read.
func (o ReadOptions) Read(r io.Reader, source string) (*Catalog, error) {
	lr, err := boundedinput.Limit(r, source, o.MaxSize) // 0 or less: DefaultMaxSize
	if err != nil {
		var tle *boundedinput.TooLargeError
		if errors.As(err, &tle) {
			return nil, tooLarge(source, tle)
		}
		return nil, &Error{Source: source, Msg: "cannot read: " + err.Error(), Err: err}
	}
	br := bufio.NewReader(lr)
	if head, _ := br.Peek(len(utf8BOM)); string(head) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	tr := newTracker(br)
	d := &docReader{
		source: source,
		opts:   o,
		tr:     tr,
		dec:    json.NewDecoder(tr),
		cat:    &Catalog{Source: source, Tools: []Tool{}},
		names:  newNameIndex(),
	}
	err = d.document()
	// The tools still pending come before whatever stopped the read: their
	// problems come first.
	if perr := d.flush(); perr != nil && err == nil {
		err = perr
	}
	if err := d.outcome(err); err != nil {
		return nil, err
	}
	return d.cat, nil
}

// tool checks one element of the tools array, raw at offset off of the
// input, and queues it for the runtime's checks, after which it joins the
// catalog. path names the element in errors.
func (d *docReader) tool(raw json.RawMessage, off int64, path string) error {
	line, col := d.tr.pos(off)
	r := &reader{source: d.source, data: raw, line: line, col: col}
	t, err := r.tool(path)
	if err != nil {
		return d.problem(err)
	}
	if err := d.checkName(r, t); err != nil {
		return d.problem(err)
	}
	return d.queue(r, t)
}
