// Command largecatalog writes a synthetic MCP tools/list catalog of about
// the size asked for, the same bytes for the same size: each tool has a
// 40-word description and eight described string arguments drawn from a
// small vocabulary. docs/benchmarks.md measures the command line's memory
// on its 50 MB output.
//
//	go run ./cmd/largecatalog -size 50000000 > /tmp/big50.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

var words = strings.Fields("list export archive restore table row column query filter sort view chart report user account invoice payment order customer file folder image video audio message channel team project task issue label comment")

type property struct {
	Type        string `json:"type"`
	Description string `json:"description"`
}

type schema struct {
	Type       string              `json:"type"`
	Properties map[string]property `json:"properties"`
	Required   []string            `json:"required"`
}

type tool struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	InputSchema schema `json:"inputSchema"`
}

func main() {
	size := flag.Int("size", 50_000_000, "approximate size of the catalog in bytes")
	flag.Parse()
	if err := write(bufio.NewWriter(os.Stdout), *size); err != nil {
		fmt.Fprintln(os.Stderr, "largecatalog:", err)
		os.Exit(1)
	}
}

func write(w *bufio.Writer, size int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	phrase := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	w.WriteString(`{"tools":[`)
	written := 0
	for i := 0; written < size; i++ {
		t := tool{Name: fmt.Sprintf("tool_%d", i), Title: fmt.Sprintf("tool %d", i), Description: phrase(40),
			InputSchema: schema{Type: "object", Properties: map[string]property{}, Required: []string{"arg0"}}}
		for j := range 8 {
			t.InputSchema.Properties[fmt.Sprintf("arg%d", j)] = property{Type: "string", Description: phrase(12)}
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.Write(b)
		written += len(b) + 1
	}
	w.WriteString("]}\n")
	return w.Flush()
}
