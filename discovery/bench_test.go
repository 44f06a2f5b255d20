package discovery

import (
	"fmt"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// benchRequest is a request with n deferred tools.
func benchRequest(n int) *model.Request {
	req := &model.Request{Search: model.SearchSettings{Mode: model.SearchPortable}}
	var b search.DocumentBuilder
	for i := range n {
		name := fmt.Sprintf("tool%d", i)
		id := tools.Ident("ws." + name)
		text := fmt.Sprintf("Manage resource %d: list, export, archive or restore item %d of the workspace", i, i*7)
		doc := b.Build(search.Source{Name: string(id), Title: name, Description: text}).WithAliases(name)
		req.Tools = append(req.Tools, model.ToolDefinition{Name: name, Ident: id, Description: text, Deferred: true, Search: &doc})
	}
	return req
}

// BenchmarkBeginAndSearch: one invocation's discovery on a catalog whose
// index is cached — what every request pays for its search (fingerprint,
// state, one ranked query), next to BenchmarkIndexBuild, what a changed
// catalog pays once.
func BenchmarkBeginAndSearch(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		req := benchRequest(n)
		e := newEngine(b)
		if _, err := e.Begin(req, "search_tools"); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t, _ := e.Begin(req, "search_tools")
				t.SearchQuery("export archived items")
			}
		})
	}
}

// BenchmarkIndexBuild: indexing a catalog the engine has not seen.
func BenchmarkIndexBuild(b *testing.B) {
	req := benchRequest(10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := newEngine(b).Begin(req, "search_tools"); err != nil {
			b.Fatal(err)
		}
	}
}
