package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeKeysFileErrorsHaveLineAndColumn checks that a --keys file whose
// JSON is wrong fails with the file, line and column of the mistake.
func TestServeKeysFileErrorsHaveLineAndColumn(t *testing.T) {
	for _, c := range []struct{ name, content, want string }{
		{"syntax", "{\"clients\": [\n  {\"name\": \"a\" \"key\": \"k\"}]}", ":2:16: invalid character '\"' after object key:value pair"},
		{"type", "{\"clients\": [\n  {\"name\": \"a\",\n   \"key\": 5}]}", ":3:11: cannot unmarshal number"},
		{"unknown field", "{\"clients\": [{\"name\": \"a\",\n   \"kee\": \"x\"}]}", `:2:4: unknown field "kee"`},
		{"truncated", "{\"clients\": [", ":1:14: the JSON ends early"},
		{"empty", "", ":1:1: the file is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			keys := filepath.Join(t.TempDir(), "keys.json")
			if err := os.WriteFile(keys, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			r := quiver(t, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", keys)
			if r.code != exitError || !strings.Contains(r.stderr, "--keys "+keys+c.want) {
				t.Errorf("exit %d, stderr %q: want 1 and %q", r.code, r.stderr, "--keys "+keys+c.want)
			}
		})
	}
}
