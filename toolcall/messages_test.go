package toolcall

import (
	"testing"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/model"
)

// TestNotInActiveSetListsAlternativesOnlyWhenThereAreSome: the refusal of
// an undiscovered tool offers the inline tools when there are some, and
// ends with the search when there are none, never with a dangling "or use
// one of: ".
func TestNotInActiveSetListsAlternativesOnlyWhenThereAreSome(t *testing.T) {
	portable := model.SearchSettings{Mode: model.SearchPortable}
	for _, tc := range []struct {
		name   string
		inline []string
		search model.SearchSettings
		want   string
	}{
		{"portable, inline tools", []string{"lookup", "note"}, portable, "Tool 'export' not in active set. Call search_tools(query='export') to discover it, or use one of: lookup, note"},
		{"portable, no inline tools", nil, portable, "Tool 'export' not in active set. Call search_tools(query='export') to discover it."},
		{"native, inline tools", []string{"lookup"}, model.SearchSettings{}, "Tool 'export' not in active set. Call tool_search(query='export') to discover it, or use one of: lookup"},
		{"native, no inline tools", nil, model.SearchSettings{}, "Tool 'export' not in active set. Call tool_search(query='export') to discover it."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NotInActiveSet(catalog.Refusal("export", tc.inline, tc.search, ""))
			if f.Code != KindNotInActiveSet || f.Recovery != RecoveryCorrectCall {
				t.Errorf("code %q, recovery %q", f.Code, f.Recovery)
			}
			if f.Message != tc.want {
				t.Errorf("message\n%q\nwant\n%q", f.Message, tc.want)
			}
		})
	}
}
