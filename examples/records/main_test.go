package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/conversation.golden")

// TestConversation runs the example through the generated packages and
// compares what it prints with the golden file: the inline count, the
// deferred export found by search, the suspension for its confirmation,
// the approval and the answer.
func TestConversation(t *testing.T) {
	var buf bytes.Buffer
	if err := conversation(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("testdata/conversation.golden", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/conversation.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("output differs from testdata/conversation.golden (run with -update after checking):\n%s", buf.String())
	}
}
