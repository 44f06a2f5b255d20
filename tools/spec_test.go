package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/search"
)

// validSpec returns a spec using every field.
func validSpec(t testing.TB) ToolSpec {
	t.Helper()
	payload := mustType(t, `{"type":"object","required":["site_id"],"properties":{
		"site_id":{"type":"string","description":"Site identifier"},
		"cursor":{"type":"string","description":"Opaque cursor of the next page"}}}`)
	payload, err := payload.WithExample(json.RawMessage(`{"site_id":"s1"}`))
	if err != nil {
		t.Fatal(err)
	}
	s := ToolSpec{
		Name:               "inventory.list_devices",
		Title:              "List devices",
		Description:        "List the devices of a site, a page at a time.",
		Tags:               []string{"inventory", "read"},
		Meta:               map[string][]string{"ui.icon": {"router"}},
		Payload:            payload,
		Result:             mustType(t, `{"type":"object","properties":{"devices":{"type":"array"}}}`),
		ServerData:         []ServerDataSpec{{Kind: "inventory.devices", Audience: AudienceTimeline, Schema: mustType(t, `{"type":"array"}`)}},
		Bounds:             &BoundsSpec{Cursor: "cursor", NextCursor: BoundsFieldNextCursor},
		Confirmation:       &ConfirmationSpec{Title: "Confirm", PromptTemplate: `List {{ .site_id }}?`, DeniedResultTemplate: `{"site":{{ json .site_id }}}`},
		CallHintTemplate:   `Listing {{ .SiteID }}`,
		ResultHintTemplate: `{{ count .Result.Devices }} devices`,
		ResultReminder:     "The user sees a table.",
		Inject: []InjectedField{
			ClassifyInjected("session_id"),
			ClassifyInjected("household_id"),
		},
		RequiredLabels: []string{"household_id"},
		Exposure:       ExposureReadOnly,
	}
	s.Search = search.NewDocument(s.SearchSource("devices", "routers"))
	return s
}

func TestValidSpec(t *testing.T) {
	if err := validSpec(t).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestToolSpecValidate(t *testing.T) {
	cases := []struct {
		rule   string
		mutate func(*ToolSpec)
		want   string
		is     error
	}{
		{"the ident must be valid", func(s *ToolSpec) { s.Name = "nodot" }, "has no dot", ErrInvalidIdent},
		{"the title must not be empty", func(s *ToolSpec) { s.Title = " " }, "title is empty", nil},
		{"tags must not be empty", func(s *ToolSpec) { s.Tags = append(s.Tags, "") }, "tag 2 is empty", nil},
		{"tags must not repeat", func(s *ToolSpec) { s.Tags = append(s.Tags, "read") }, `tag "read" is repeated`, nil},
		{"meta keys must not be empty", func(s *ToolSpec) { s.Meta[""] = nil }, "meta has an empty key", nil},
		{"schemas must be compiled", func(s *ToolSpec) { s.Result = TypeSpec{Schema: json.RawMessage(`{}`)} }, "result: schema has no validator", ErrNotCompiled},
		{"examples must be complete", func(s *ToolSpec) { s.Payload.Example = &Example{Raw: json.RawMessage(`{}`)} }, "payload: example lacks the schema without example", nil},
		{"server data needs a kind", func(s *ToolSpec) { s.ServerData[0].Kind = "" }, "server data 0: kind is empty", nil},
		{"server data kinds are unique", func(s *ToolSpec) { s.ServerData = append(s.ServerData, s.ServerData[0]) }, "declared twice", nil},
		{"server data audiences are known", func(s *ToolSpec) { s.ServerData[0].Audience = "" }, `audience "" is unknown`, nil},
		{"a next cursor needs a cursor", func(s *ToolSpec) { s.Bounds.Cursor = "" }, "needs a payload cursor field", nil},
		{"next cursor and continue-with exclude each other", func(s *ToolSpec) { s.Bounds.ContinueWith = "next_page" }, "declare only one", nil},
		{"continue-with names a bare tool", func(s *ToolSpec) { s.Bounds = &BoundsSpec{ContinueWith: "other.tool"} }, "bare name", nil},
		{"the next cursor cannot be a canonical field", func(s *ToolSpec) { s.Bounds.NextCursor = "total" }, "already a canonical bounds field", nil},
		{"the cursor must be a payload property", func(s *ToolSpec) { s.Bounds.Cursor = "page" }, `cursor field "page" is not a top-level property`, nil},
		{"the cursor must be optional", func(s *ToolSpec) { s.Bounds.Cursor = "site_id" }, "make it optional", nil},
		{"the cursor needs a payload schema", func(s *ToolSpec) { s.Payload = TypeSpec{} }, "needs a payload schema", nil},
		{"templates must parse", func(s *ToolSpec) { s.CallHintTemplate = "{{ .X " }, "call hint template does not parse", nil},
		{"template functions must exist", func(s *ToolSpec) { s.ResultHintTemplate = "{{ nope .X }}" }, `function "nope" not defined`, nil},
		{"confirmation templates must parse", func(s *ToolSpec) { s.Confirmation.PromptTemplate = "{{" }, "confirmation prompt template does not parse", nil},
		{"injected fields follow the seed rule", func(s *ToolSpec) { s.Inject[0].Source = InjectLabel; s.Inject[0].Meta = "" }, `"session_id" is meta-backed`, nil},
		{"label-backed fields follow the seed rule", func(s *ToolSpec) { s.Inject[1].Source = InjectMeta; s.Inject[1].Meta = MetaRunID }, "is label-backed", nil},
		{"label-backed fields need their label", func(s *ToolSpec) { s.RequiredLabels = nil }, "add it to RequiredLabels", nil},
		{"injected fields stay out of the model's schema", func(s *ToolSpec) { s.Inject = append(s.Inject, ClassifyInjected("site_id")) }, `"site_id" appears in the model-facing payload schema`, nil},
		{"injected fields are unique", func(s *ToolSpec) { s.Inject = append(s.Inject, s.Inject[0]) }, "declared twice", nil},
		{"required labels are unique", func(s *ToolSpec) { s.RequiredLabels = append(s.RequiredLabels, "household_id") }, "repeated", nil},
		{"the search document must be valid", func(s *ToolSpec) { s.Search = search.Document{} }, "invalid document", search.ErrInvalidDocument},
		{"the search document is keyed by the ident", func(s *ToolSpec) { s.Search = search.NewDocument(search.Source{Name: "other.tool"}) }, "not by the ident", nil},
		{"the exposure is known", func(s *ToolSpec) { s.Exposure = "public" }, `exposure "public" is unknown`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			s := validSpec(t)
			tc.mutate(&s)
			err := s.Validate()
			if err == nil {
				t.Fatal("Validate accepted the spec")
			}
			if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v\nwant ErrInvalidSpec mentioning %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Validate = %v, want it to wrap %v", err, tc.is)
			}
		})
	}
}

func TestToolSpecValidateReportsEveryProblem(t *testing.T) {
	s := validSpec(t)
	s.Name, s.Title, s.Exposure = "bad", "", "x"
	var se *SpecError
	if !errors.As(s.Validate(), &se) {
		t.Fatal("want *SpecError")
	}
	// ident, title, search key, exposure
	if len(se.Problems) != 4 {
		t.Errorf("problems = %d, want 4:\n%v", len(se.Problems), se)
	}
}

func TestToolSpecCloneIsDeep(t *testing.T) {
	orig := validSpec(t)
	pristine := validSpec(t)
	c := orig.Clone()
	if !reflect.DeepEqual(c, orig) {
		t.Fatal("clone differs from the original")
	}
	c.Payload.Schema[0] = 'X'
	c.Payload.Example.Raw[0] = 'X'
	c.Payload.Example.SchemaWithoutExample[0] = 'X'
	c.Payload.Example.Value.(map[string]any)["site_id"] = "changed"
	c.Result.Schema[0] = 'X'
	c.Tags[0] = "changed"
	c.Meta["ui.icon"][0] = "changed"
	c.Meta["new"] = nil
	c.ServerData[0].Schema.Schema[0] = 'X'
	c.ServerData[0].Kind = "changed"
	c.Bounds.Cursor = "changed"
	c.Confirmation.Title = "changed"
	c.Inject[0].Name = "changed"
	c.RequiredLabels[0] = "changed"
	c.Search.Aliases[0] = "changed"
	c.Search.Fields[search.FieldTitle].Terms[0].Term = "changed"
	if !reflect.DeepEqual(orig, pristine) {
		t.Error("mutating the clone changed the original")
	}
	if err := orig.Payload.Validate([]byte(`{"site_id":"s"}`)); err != nil {
		t.Errorf("original payload no longer validates: %v", err)
	}
}

func TestIsBookkeeping(t *testing.T) {
	cases := []struct {
		rule                      string
		bookkeeping, terminal, is bool
	}{
		{"ordinary tools are budgeted", false, false, false},
		{"bookkeeping tools are bookkeeping", true, false, true},
		{"terminal tools are bookkeeping", false, true, true},
		{"both is bookkeeping", true, true, true},
	}
	for _, tc := range cases {
		if got := (ToolSpec{Bookkeeping: tc.bookkeeping, TerminalRun: tc.terminal}).IsBookkeeping(); got != tc.is {
			t.Errorf("%s: IsBookkeeping = %v", tc.rule, got)
		}
	}
}

func TestInheritTags(t *testing.T) {
	cases := []struct {
		rule          string
		toolset, tool []string
		want          []string
	}{
		{"toolset tags come first", []string{"docs"}, []string{"search"}, []string{"docs", "search"}},
		{"repeats are dropped, first seen wins", []string{"a", "b", "a"}, []string{"b", "c", "c"}, []string{"a", "b", "c"}},
		{"no tags gives none", nil, nil, nil},
	}
	for _, tc := range cases {
		toolset := slices.Clone(tc.toolset)
		got := InheritTags(toolset, tc.tool)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: InheritTags = %q, want %q", tc.rule, got, tc.want)
		}
		if len(got) > 0 && len(toolset) > 0 {
			got[0] = "changed"
			if toolset[0] == "changed" {
				t.Errorf("%s: result aliases the toolset's tags", tc.rule)
			}
		}
	}
}

func TestSearchSource(t *testing.T) {
	s := validSpec(t)
	src := s.SearchSource("devices", "inventory")
	if src.Name != "inventory.list_devices" || !slices.Equal(src.Aliases, []string{"list_devices"}) {
		t.Errorf("names = %q %q", src.Name, src.Aliases)
	}
	if want := []string{"devices", "inventory", "read"}; !slices.Equal(src.Keywords, want) {
		t.Errorf("Keywords = %q, want %q", src.Keywords, want)
	}
	want := []search.Arg{{Name: "site_id", Description: "Site identifier"}, {Name: "cursor", Description: "Opaque cursor of the next page"}}
	if !slices.Equal(src.Args, want) {
		t.Errorf("Args = %+v, want %+v (schema order)", src.Args, want)
	}
}

func TestExposureRank(t *testing.T) {
	tiers := []Exposure{ExposureReadOnly, ExposureStaging, ExposureFull}
	for i, e := range tiers {
		if e.Rank() != i+1 {
			t.Errorf("%q.Rank() = %d, want %d (read_only < staging < full)", e, e.Rank(), i+1)
		}
	}
	for _, e := range []Exposure{"", ExposureExcluded, "public", "FULL"} {
		if e.Rank() != 0 {
			t.Errorf("%q.Rank() = %d, want 0: it is no client tier", e, e.Rank())
		}
	}
}

func TestExposureCovers(t *testing.T) {
	all := []Exposure{"", ExposureReadOnly, ExposureStaging, ExposureFull, ExposureExcluded, "public"}
	want := map[[2]Exposure]bool{
		{ExposureReadOnly, ExposureReadOnly}: true,
		{ExposureStaging, ExposureReadOnly}:  true,
		{ExposureStaging, ExposureStaging}:   true,
		{ExposureFull, ExposureReadOnly}:     true,
		{ExposureFull, ExposureStaging}:      true,
		{ExposureFull, ExposureFull}:         true,
	}
	for _, e := range all {
		for _, other := range all {
			if got := e.Covers(other); got != want[[2]Exposure{e, other}] {
				t.Errorf("%q.Covers(%q) = %v, want %v", e, other, got, !got)
			}
		}
	}
}
