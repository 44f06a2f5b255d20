package catalogfile_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/quiver-go/quiver/tools/catalogfile"
	"github.com/quiver-go/quiver/tools/contract"
)

// addSeeds adds every test file and a few shapes to the corpus.
func addSeeds(f *testing.F) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"description":"y"}}}}]`))
	f.Add([]byte(`{"tools":[{"name":"a"},{"name":"a"}]}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"docs.find","input_schema":{"type":"object"}}],"nextCursor":"c"}}`))
	f.Add([]byte("\xef\xbb\xbf[{\"name\":\"a\",\"tags\":[\"t\"],\"keywords\":[\"k\"]},{\"name\":\"A\"}]"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`))
}

// FuzzRead checks that Read never panics and that what it accepts keeps
// the package's invariants, the first being that the runtime accepts it:
// every tool's declaration compiles.
func FuzzRead(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := catalogfile.Read(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		if len(c.Warnings) > 0 && c.Warnings[0].Line == 0 {
			t.Fatalf("warning without a position: %v", c.Warnings[0])
		}
		seen := make(map[string]bool)
		for _, tool := range c.Tools {
			if tool.Name == "" || seen[tool.Name] {
				t.Fatalf("empty or repeated name %q", tool.Name)
			}
			seen[tool.Name] = true
			var schema map[string]json.RawMessage
			if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
				t.Fatalf("tool %q schema is not an object: %v", tool.Name, err)
			}
			_ = tool.SearchSource()
		}
		decls, err := c.Declarations(catalogfile.DefaultToolset)
		if err != nil {
			t.Fatalf("accepted, but Declarations fails: %v", err)
		}
		for _, d := range decls {
			if _, err := contract.Compile(d); err != nil {
				t.Fatalf("accepted, but the runtime refuses it: %v", err)
			}
		}
	})
}

// FuzzReadChunks checks that how the input arrives does not change the
// result: read whole or one byte at a time, the same catalog or the same
// error, at the same position.
func FuzzReadChunks(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, werr := catalogfile.ReadOptions{Lenient: true}.Read(bytes.NewReader(data), "fuzz.json")
		bytewise, berr := catalogfile.ReadOptions{Lenient: true}.Read(iotest.OneByteReader(bytes.NewReader(data)), "fuzz.json")
		if (werr == nil) != (berr == nil) || werr != nil && werr.Error() != berr.Error() {
			t.Fatalf("whole: %v\nbyte by byte: %v", werr, berr)
		}
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("whole: %+v\nbyte by byte: %+v", whole, bytewise)
		}
	})
}

// FuzzReadLimit checks that no input gets past MaxSize: a read either
// fails or read at most MaxSize bytes.
func FuzzReadLimit(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 64
		_, err := catalogfile.ReadOptions{MaxSize: limit}.Read(bytes.NewReader(data), "fuzz.json")
		if err == nil && len(data) > limit {
			t.Fatalf("accepted %d bytes over a %d-byte limit", len(data), limit)
		}
	})
}
