package boundedinput_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/boundedinput"
)

func TestLimitReadsUpToTheLimit(t *testing.T) {
	r, err := boundedinput.Limit(strings.NewReader("12345"), "x", 5)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := io.ReadAll(r); err != nil || string(data) != "12345" {
		t.Errorf("ReadAll = %q, %v: an input of exactly the limit is read whole", data, err)
	}
	r, _ = boundedinput.Limit(strings.NewReader("123456"), "stdin", 5)
	data, err := io.ReadAll(r)
	if len(data) > 5 {
		t.Errorf("read %d bytes past a limit of 5", len(data))
	}
	var tle *boundedinput.TooLargeError
	if !errors.As(err, &tle) || !errors.Is(err, boundedinput.ErrTooLarge) || tle.Limit != 5 || tle.Size != 0 {
		t.Fatalf("err = %#v, want a *TooLargeError", err)
	}
	if want := "stdin is over the 5 B input limit"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	if _, again := r.Read(make([]byte, 1)); again != err {
		t.Errorf("the error is not sticky: %v", again)
	}
}

func TestOpenChecksARegularFileFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	f.Close()
	start := time.Now()
	_, err = boundedinput.Open(path, 0)
	if want := path + " is 3 GiB, over the 64 MiB input limit"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
	if _, err := boundedinput.Open(filepath.Join(t.TempDir(), "none"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestOpenCutsOffADevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	start := time.Now()
	f, err := boundedinput.Open("/dev/zero", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := io.Copy(io.Discard, f)
	if n != 1<<20 || !errors.Is(err, boundedinput.ErrTooLarge) {
		t.Errorf("copied %d bytes, err %v; want 1 MiB then ErrTooLarge", n, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

func TestSizes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"512B", 512}, {"64MiB", 64 << 20}, {"64 MiB", 64 << 20}, {"1.5GiB", 3 << 29},
		{"500MB", 500e6}, {"2kB", 2000}, {"2KB", 2000}, {"1KiB", 1024}, {" 1TiB ", 1 << 40}, {"1.0001KiB", 1025},
	} {
		if got, err := boundedinput.ParseSize(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "MiB", "lots", "-1", "0", "1e6", "0x10", "1..5MB", "inf", "1 PiB", "9999999TiB", "0.5B"} {
		if n, err := boundedinput.ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", bad, n)
		}
	}
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {512, "512 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"}, {64 << 20, "64 MiB"}, {2 << 30, "2 GiB"}, {1 << 40, "1 TiB"},
	} {
		if got := boundedinput.FormatSize(tt.n); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if tt.n > 0 {
			if back, err := boundedinput.ParseSize(boundedinput.FormatSize(tt.n)); err != nil || back != tt.n {
				t.Errorf("ParseSize(FormatSize(%d)) = %d, %v", tt.n, back, err)
			}
		}
	}
}
