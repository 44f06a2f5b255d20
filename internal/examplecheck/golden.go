package examplecheck

import (
	"bytes"
	"os"
	"testing"
)

// Golden compares got with the golden file at path, after rewriting the
// file with got when update is set (a test's -update flag). A difference
// fails the test, showing got and how to accept it.
func Golden(t *testing.T, got []byte, path string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run the test with -update after checking):\n%s", path, got)
	}
}
