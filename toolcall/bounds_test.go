package toolcall_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

func TestProjectBounds(t *testing.T) {
	total := 120
	full := toolcall.Bounds{Returned: 2, Total: &total, Truncated: true, NextCursor: "c-2", RefinementHint: "filter by site"}
	direct := &tools.BoundsSpec{Cursor: "cursor", NextCursor: "next_cursor"}
	tests := []struct {
		name   string
		result string
		bounds toolcall.Bounds
		spec   *tools.BoundsSpec
		want   string
	}{
		{
			"direct cursor",
			`{"devices": ["a", "b"], "site": "s1"}`, full, direct,
			`{"devices":["a","b"],"site":"s1","returned":2,"truncated":true,"total":120,"refinement_hint":"filter by site","next_cursor":"c-2"}`,
		},
		{
			"cursor field name from the spec",
			`{"devices":[]}`, toolcall.Bounds{Returned: 0, NextCursor: "c-9"}, &tools.BoundsSpec{Cursor: "page", NextCursor: "next_page"},
			`{"devices":[],"returned":0,"truncated":false,"next_page":"c-9"}`,
		},
		{
			"default cursor field name",
			`{"devices":[]}`, toolcall.Bounds{NextCursor: "c-9"}, &tools.BoundsSpec{Cursor: "page"},
			`{"devices":[],"returned":0,"truncated":false,"next_cursor":"c-9"}`,
		},
		{
			"continue-with keeps the cursor in the runtime",
			`{"devices":["a"]}`, full, &tools.BoundsSpec{Cursor: "cursor", ContinueWith: "list_more"},
			`{"devices":["a"],"returned":2,"truncated":true,"total":120,"refinement_hint":"filter by site"}`,
		},
		{
			"no cursor contract",
			`{"devices":["a"]}`, full, &tools.BoundsSpec{},
			`{"devices":["a"],"returned":2,"truncated":true,"total":120,"refinement_hint":"filter by site"}`,
		},
		{
			"nil spec",
			`{"devices":["a"]}`, toolcall.Bounds{Returned: 1}, nil,
			`{"devices":["a"],"returned":1,"truncated":false}`,
		},
		{
			"array result is wrapped",
			`["a","b"]`, toolcall.Bounds{Returned: 2, Truncated: true}, direct,
			`{"result":["a","b"],"returned":2,"truncated":true}`,
		},
		{
			"scalar result is wrapped",
			` "only" `, toolcall.Bounds{Returned: 1}, nil,
			`{"result":"only","returned":1,"truncated":false}`,
		},
		{
			"empty object",
			`{}`, toolcall.Bounds{Returned: 0}, nil,
			`{"returned":0,"truncated":false}`,
		},
		{
			"reported bounds replace colliding keys",
			`{"returned":99,"items":[1],"truncated":false}`, toolcall.Bounds{Returned: 1, Truncated: true}, nil,
			`{"items":[1],"returned":1,"truncated":true}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := toolcall.ProjectBounds(json.RawMessage(tt.result), tt.bounds, tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("ProjectBounds =\n %s\nwant\n %s", got, tt.want)
			}
		})
	}
}

func TestProjectBoundsErrors(t *testing.T) {
	for _, in := range []string{``, `  `, `{"a":`, `{"a":1}{}`} {
		if _, err := toolcall.ProjectBounds(json.RawMessage(in), toolcall.Bounds{}, nil); err == nil || !strings.HasPrefix(err.Error(), "project bounds: ") {
			t.Errorf("ProjectBounds(%q) error = %v", in, err)
		}
	}
}
