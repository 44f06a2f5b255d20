package catalogfile

import (
	"bytes"
	"errors"
	"io"
)

// tracker sits between the input and the json.Decoder and keeps the bytes
// the decoder has read since a mark, with the line and column of the mark.
// Any offset at or after the mark can so be located, and the bytes of a
// value scanned again to find where a syntax error is, while the bytes
// before the mark (tools already read) are dropped: reading holds one tool,
// plus the decoder's read-ahead, at a time.
type tracker struct {
	r    io.Reader
	base int64  // offset of buf[0], the mark
	buf  []byte // bytes read since the mark
	// line and col locate the mark (1-based; col counts bytes).
	line, col int
}

// newTracker returns a tracker of r, positioned at 1:1.
func newTracker(r io.Reader) *tracker { return &tracker{r: r, line: 1, col: 1} }

// Read implements io.Reader, keeping what it reads. It fills p unless the
// input ends or fails first: the decoder then grows its buffer by doubling
// rather than by the size of each read, which keeps its scan of a long run
// of white space between values linear.
func (t *tracker) Read(p []byte) (int, error) {
	n, err := io.ReadAtLeast(t.r, p, len(p))
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	t.buf = append(t.buf, p[:n]...)
	return n, err
}

// end returns the offset just past the last byte read.
func (t *tracker) end() int64 { return t.base + int64(len(t.buf)) }

// clamp brings off within [mark, end].
func (t *tracker) clamp(off int64) int {
	return int(max(0, min(off-t.base, int64(len(t.buf)))))
}

// from returns the bytes read from off on (off at or after the mark).
func (t *tracker) from(off int64) []byte { return t.buf[t.clamp(off):] }

// pos returns the line and column of off (off at or after the mark; an
// offset past the end is placed just after the last byte read).
func (t *tracker) pos(off int64) (line, col int) {
	return advance(t.line, t.col, t.buf[:t.clamp(off)])
}

// forget moves the mark to off, dropping the bytes before it.
func (t *tracker) forget(off int64) {
	k := t.clamp(off)
	t.line, t.col = advance(t.line, t.col, t.buf[:k])
	t.buf = t.buf[k:]
	t.base += int64(k)
}

// advance returns the position just after data, which starts at line:col.
func advance(line, col int, data []byte) (int, int) {
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		return line + bytes.Count(data, []byte{'\n'}), len(data) - i
	}
	return line, col + len(data)
}
