package catalogfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/quiver-go/quiver/internal/boundedinput"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// endless is a reader that never ends: a tools array opening followed by
// white space forever, a catalog that is well formed as far as it goes.
type endless struct{ started bool }

func (e *endless) Read(p []byte) (int, error) {
	if !e.started {
		e.started = true
		return copy(p, "["), nil
	}
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestReadStopsAtMaxSize(t *testing.T) {
	in := `{"tools": [{"name": "a"}]}`
	if _, err := (catalogfile.ReadOptions{MaxSize: int64(len(in))}).Read(strings.NewReader(in), "x.json"); err != nil {
		t.Fatalf("a catalog of exactly MaxSize bytes: %v", err)
	}
	_, err := catalogfile.ReadOptions{MaxSize: int64(len(in) - 1)}.Read(strings.NewReader(in), "x.json")
	want := "catalogfile: x.json: the input is over the 25 B size limit; nothing past it was read"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if !errors.Is(err, boundedinput.ErrTooLarge) {
		t.Errorf("err does not match boundedinput.ErrTooLarge: %#v", err)
	}
}

func TestReadRefusesAnEndlessStream(t *testing.T) {
	start := time.Now()
	_, err := catalogfile.ReadOptions{MaxSize: 1 << 20}.Read(&endless{}, "stdin")
	if !errors.Is(err, boundedinput.ErrTooLarge) {
		t.Fatalf("err = %v, want it too large", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v to refuse", d)
	}
}

func TestLoadRefusesAnOversizedFileUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse 2 GiB file: its size is known without writing or reading it.
	if err := f.Truncate(2 << 30); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	f.Close()
	start := time.Now()
	_, err = catalogfile.Load(path)
	want := "catalogfile: " + path + ": the input is 2 GiB, over the 64 MiB size limit"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v to refuse", d)
	}
	small := filepath.Join(t.TempDir(), "small.json")
	if err := os.WriteFile(small, []byte(`{"tools": [{"name": "a"}, {"name": "b"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = catalogfile.ReadOptions{MaxSize: 16}.Load(small)
	if want := "catalogfile: " + small + ": the input is 41 B, over the 16 B size limit"; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestLoadDevZeroFailsAtOnce(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, max := range []int64{0, 1 << 10} {
		start := time.Now()
		_, err := catalogfile.ReadOptions{MaxSize: max}.Load("/dev/zero")
		want := `catalogfile: /dev/zero:1:1: invalid JSON: invalid character '\x00' looking for beginning of value`
		if err == nil || err.Error() != want {
			t.Errorf("MaxSize %d: err = %v\nwant %s", max, err, want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("MaxSize %d: took %v to refuse", max, d)
		}
	}
}

// TestReadHoldsOneToolAtATime checks that errors far into a large input
// are positioned as in a small one, though the bytes before them were
// dropped as they were read.
func TestReadHoldsOneToolAtATime(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\"tools\": [\n")
	const n = 2000
	for i := range n {
		b.WriteString(`  {"name": "t` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strconv.Itoa(i) + `", "description": "` + strings.Repeat("word ", 20) + "\"},\n")
	}
	b.WriteString(`  {"name": 7}` + "\n]}")
	in := b.String()
	for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in)), iotest.OneByteReader(strings.NewReader(in))} {
		_, err := catalogfile.Read(r, "x.json")
		want := "catalogfile: x.json:2002:12: tools[2000].name: expected a non-empty string, got number"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	}
}
