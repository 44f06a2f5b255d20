package benchdata

import (
	"slices"
	"testing"

	"github.com/quiver-go/quiver/search/eval"
)

// TestEveryNth checks the subset's members and size.
func TestEveryNth(t *testing.T) {
	var qs []eval.Query
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		qs = append(qs, eval.Query{ID: id})
	}
	for _, c := range []struct {
		n    int
		want []string
	}{
		{3, []string{"a", "d", "g"}},
		{4, []string{"a", "e"}},
		{1, []string{"a", "b", "c", "d", "e", "f", "g"}},
		{0, []string{"a", "b", "c", "d", "e", "f", "g"}},
		{10, []string{"a"}},
	} {
		var got []string
		for _, q := range EveryNth(qs, c.n) {
			got = append(got, q.ID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("EveryNth(%d) = %v; want %v", c.n, got, c.want)
		}
	}
	if got := EveryNth(nil, 4); len(got) != 0 {
		t.Errorf("EveryNth(nil) = %v; want none", got)
	}
}
