package main

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/quiver-go/quiver/internal/examplecheck"
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
	examplecheck.Golden(t, buf.Bytes(), "testdata/conversation.golden", *update)
}
