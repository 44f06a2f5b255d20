package benchdata

import (
	"slices"
	"strings"
	"testing"
)

// names returns the tools' names in order.
func names(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// TestWithDistractors checks the order, the renaming of a colliding
// distractor and the distractor lookup.
func TestWithDistractors(t *testing.T) {
	labelled := []Tool{{Name: "speak"}, {Name: "WeatherTool"}}
	distractors := []Tool{{Name: "get_weather"}, {Name: "speak", Description: "distractor"}}
	m, err := WithDistractors(labelled, distractors, "x:")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(m.Tools), []string{"speak", "WeatherTool", "get_weather", "x:speak"}; !slices.Equal(got, want) {
		t.Errorf("names = %v; want %v", got, want)
	}
	if m.Tools[3].Description != "distractor" {
		t.Errorf("renamed distractor lost its fields: %+v", m.Tools[3])
	}
	if !slices.Equal(m.Renamed, []string{"x:speak"}) {
		t.Errorf("Renamed = %v; want [x:speak]", m.Renamed)
	}
	for _, c := range []struct {
		name, original string
		ok             bool
	}{
		{"x:speak", "speak", true},
		{"get_weather", "get_weather", true},
		{"speak", "", false},
		{"WeatherTool", "", false},
		{"absent", "", false},
	} {
		if o, ok := m.Distractor(c.name); o != c.original || ok != c.ok {
			t.Errorf("Distractor(%q) = %q, %v; want %q, %v", c.name, o, ok, c.original, c.ok)
		}
	}
}

// TestWithDistractorsRefusesCollisions checks that no name is silently
// merged over another.
func TestWithDistractorsRefusesCollisions(t *testing.T) {
	for _, c := range []struct {
		what                  string
		labelled, distractors []Tool
		wantErr               string
	}{
		{"labelled repeat", []Tool{{Name: "a"}, {Name: "a"}}, nil, `"a" repeats`},
		{"distractor repeat", []Tool{{Name: "a"}}, []Tool{{Name: "b"}, {Name: "b"}}, `"b" repeats`},
		{"renamed collides", []Tool{{Name: "a"}, {Name: "x:a"}}, []Tool{{Name: "a"}}, `still collides`},
	} {
		_, err := WithDistractors(c.labelled, c.distractors, "x:")
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: err = %v; want one containing %s", c.what, err, c.wantErr)
		}
	}
}

// TestMetaToolWithToolSDK checks the merge the distractor benchmark uses:
// every tool of both catalogs, MetaTool's names kept, ToolSDK's one shared
// name prefixed.
func TestMetaToolWithToolSDK(t *testing.T) {
	meta, sdk := Tools(t, MetaToolCatalogFile), Tools(t, ToolSDKCatalogFile)
	m, err := WithDistractors(meta, sdk, ToolSDKPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tools) != len(meta)+len(sdk) {
		t.Errorf("%d tools; want %d", len(m.Tools), len(meta)+len(sdk))
	}
	if !slices.Equal(names(m.Tools[:len(meta)]), names(meta)) {
		t.Error("MetaTool's tools were renamed or reordered")
	}
	if !slices.Equal(m.Renamed, []string{ToolSDKPrefix + "speak"}) {
		t.Errorf("Renamed = %v; want [%sspeak], the one name the catalogs share", m.Renamed, ToolSDKPrefix)
	}
}
