package contract

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// listDevices returns a declaration using every field.
func listDevices() ToolDeclaration {
	return ToolDeclaration{
		Toolset:     "inventory.v2",
		Name:        "list_devices",
		Title:       "List devices",
		Description: "List the devices of a site, a page at a time.",
		Tags:        []string{"read"},
		Keywords:    []string{"routers", "switches"},
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,
			"required":["site_id","session_id","household_id"],
			"properties":{
				"site_id":{"type":"string","description":"Site identifier"},
				"session_id":{"type":"string"},
				"household_id":{"type":"string","pattern":"^[a-z0-9-]+$"},
				"cursor":{"type":"string","description":"Opaque page cursor"}}}`),
		OutputSchema:   json.RawMessage(`{"type":"object","properties":{"devices":{"type":"array"}}}`),
		InputExample:   json.RawMessage(`{"site_id":"paris-1"}`),
		Confirmation:   &tools.ConfirmationSpec{Title: "Confirm", PromptTemplate: "List {{ .site_id }}?"},
		Bounds:         &tools.BoundsSpec{Cursor: "cursor", NextCursor: tools.BoundsFieldNextCursor},
		ServerData:     []ServerDataDeclaration{{Kind: "inventory.devices", Schema: json.RawMessage(`{"type":"array"}`)}},
		RequiredLabels: []string{"tenant"},
		Inject:         []string{"session_id", "household_id"},
		Meta:           map[string][]string{"ui.icon": {"router"}},
		Exposure:       tools.ExposureReadOnly,
	}
}

func TestCompile(t *testing.T) {
	spec, err := Compile(listDevices())
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.Validate(); err != nil {
		t.Fatalf("compiled spec is invalid: %v", err)
	}
	if spec.Name != "inventory.v2.list_devices" || spec.Title != "List devices" || spec.Exposure != tools.ExposureReadOnly {
		t.Errorf("spec = %q %q %q", spec.Name, spec.Title, spec.Exposure)
	}
	t.Run("injected fields leave the model-facing schema", func(t *testing.T) {
		want := `{"type":"object","additionalProperties":false,
			"required":["site_id"],
			"properties":{"site_id":{"type":"string","description":"Site identifier"},"cursor":{"type":"string","description":"Opaque page cursor"}}}`
		if got, want := compact(t, spec.Payload.Schema), compact(t, json.RawMessage(want)); got != want {
			t.Errorf("payload schema = %s\nwant %s", got, want)
		}
		if err := spec.Payload.Validate([]byte(`{"site_id":"s","session_id":"forged"}`)); !errors.Is(err, tools.ErrSchemaViolation) {
			t.Errorf("model-sent injected field accepted: %v", err)
		}
	})
	t.Run("injected fields are classified by the seed rule", func(t *testing.T) {
		if len(spec.Inject) != 2 || spec.Inject[0].Source != tools.InjectMeta || spec.Inject[0].Meta != tools.MetaSessionID ||
			spec.Inject[1].Source != tools.InjectLabel || spec.Inject[1].Name != "household_id" {
			t.Fatalf("Inject = %+v", spec.Inject)
		}
		if err := spec.Inject[1].Schema.Validate([]byte(`"Bad Value"`)); err == nil {
			t.Error("the label's own schema (pattern) is not kept")
		}
	})
	t.Run("label-backed fields become required labels", func(t *testing.T) {
		if !slices.Equal(spec.RequiredLabels, []string{"tenant", "household_id"}) {
			t.Errorf("RequiredLabels = %q", spec.RequiredLabels)
		}
	})
	t.Run("codecs validate", func(t *testing.T) {
		if err := spec.Result.Validate([]byte(`{"devices":3}`)); err == nil {
			t.Error("result codec accepted a bad result")
		}
		if spec.Payload.Example == nil || string(spec.Payload.Example.Raw) != `{"site_id":"paris-1"}` {
			t.Errorf("example = %+v", spec.Payload.Example)
		}
	})
	t.Run("server data defaults to the timeline audience", func(t *testing.T) {
		if len(spec.ServerData) != 1 || spec.ServerData[0].Audience != tools.AudienceTimeline {
			t.Errorf("ServerData = %+v", spec.ServerData)
		}
	})
	t.Run("the search document covers names, text and arguments", func(t *testing.T) {
		want := search.NewDocument(search.Source{
			Name: "inventory.v2.list_devices", Aliases: []string{"list_devices"},
			Title: "List devices", Description: "List the devices of a site, a page at a time.",
			Keywords: []string{"routers", "switches", "read"},
			Args:     []search.Arg{{Name: "site_id", Description: "Site identifier"}, {Name: "cursor", Description: "Opaque page cursor"}},
		})
		if !spec.Search.Equal(want) {
			t.Errorf("Search = %#v\nwant %#v", spec.Search, want)
		}
	})
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestCompileInfersNothingFromNames(t *testing.T) {
	d := ToolDeclaration{
		Toolset: "docs", Name: "search", Title: "Search",
		InputSchema: json.RawMessage(`{"type":"object","required":["session_id"],"properties":{
			"session_id":{"type":"string"},"run_id":{"type":"string"},"cursor":{"type":"string"},"next_cursor":{"type":"string"}}}`),
	}
	spec, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Inject != nil || spec.Bounds != nil || spec.Confirmation != nil || spec.RequiredLabels != nil {
		t.Errorf("inferred metadata: inject %v, bounds %v, confirmation %v, labels %v", spec.Inject, spec.Bounds, spec.Confirmation, spec.RequiredLabels)
	}
	for _, name := range []string{"session_id", "run_id", "cursor"} {
		if !spec.Payload.Property(name).Declared {
			t.Errorf("%s was removed from the payload schema", name)
		}
	}
}

func TestCompileRejects(t *testing.T) {
	cases := []struct {
		rule   string
		mutate func(*ToolDeclaration)
		want   string
		is     error
	}{
		{"the title must be supplied", func(d *ToolDeclaration) { d.Title = "" }, "title is empty: supply", nil},
		{"tool names cannot contain dots", func(d *ToolDeclaration) { d.Name = "list.devices" }, "contains a dot", tools.ErrInvalidIdent},
		{"the toolset must be named", func(d *ToolDeclaration) { d.Toolset = "" }, "toolset name is empty", tools.ErrInvalidIdent},
		{"the input schema is required", func(d *ToolDeclaration) { d.InputSchema = nil; d.Inject = nil; d.Bounds = nil; d.InputExample = nil }, "input_schema is empty", nil},
		{"the input schema must be JSON", func(d *ToolDeclaration) { d.InputSchema = json.RawMessage(`{"type":`) }, "input_schema must be a JSON object schema", nil},
		{"the input schema must be an object schema", func(d *ToolDeclaration) {
			d.InputSchema = json.RawMessage(`{"type":"array"}`)
			d.Inject = nil
			d.Bounds = nil
			d.InputExample = nil
		}, `root "type" must be "object"`, nil},
		{"the input schema must compile", func(d *ToolDeclaration) {
			d.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":1}}}`)
			d.Inject = nil
			d.Bounds = nil
			d.InputExample = nil
		}, "input_schema: tools: invalid schema", tools.ErrInvalidSchema},
		{"the output schema must compile", func(d *ToolDeclaration) { d.OutputSchema = json.RawMessage(`{"minimum":"x"}`) }, "output_schema:", tools.ErrInvalidSchema},
		{"server data schemas must compile", func(d *ToolDeclaration) { d.ServerData[0].Schema = json.RawMessage(`[`) }, `server data "inventory.devices"`, tools.ErrInvalidSchema},
		{"server data audiences are known", func(d *ToolDeclaration) { d.ServerData[0].Audience = "public" }, `audience "public" is unknown`, nil},
		{"injected fields must be declared", func(d *ToolDeclaration) { d.Inject = append(d.Inject, "user_id") }, `"user_id" is not a property of input_schema`, nil},
		{"injected fields must be strings", func(d *ToolDeclaration) {
			d.InputSchema = json.RawMessage(`{"type":"object","properties":{"session_id":{"type":"integer"},"cursor":{"type":"string"}}}`)
			d.Inject = []string{"session_id"}
		}, `"session_id" must be declared with "type": "string"`, nil},
		{"injected fields are listed once", func(d *ToolDeclaration) { d.Inject = append(d.Inject, "session_id") }, "listed twice", nil},
		{"the cursor must be a payload field", func(d *ToolDeclaration) { d.Bounds.Cursor = "page_token" }, `cursor field "page_token" is not a top-level property`, nil},
		{"the cursor cannot be injected", func(d *ToolDeclaration) { d.Bounds.Cursor = "session_id" }, "not a top-level property", nil},
		{"bounds must be consistent", func(d *ToolDeclaration) { d.Bounds.ContinueWith = "next" }, "declare only one", nil},
		{"the example must match the model-facing schema", func(d *ToolDeclaration) { d.InputExample = json.RawMessage(`{"site_id":"s","session_id":"x"}`) }, "input_example:", tools.ErrSchemaViolation},
		{"required labels are unique", func(d *ToolDeclaration) { d.RequiredLabels = []string{"a", "a"} }, `required label "a" is repeated`, nil},
		{"keywords are not empty", func(d *ToolDeclaration) { d.Keywords = []string{""} }, "keyword 0 is empty", nil},
		{"confirmation templates parse", func(d *ToolDeclaration) { d.Confirmation.PromptTemplate = "{{ .x" }, "confirmation prompt template does not parse", nil},
		{"the exposure is known", func(d *ToolDeclaration) { d.Exposure = "everyone" }, "exposure", nil},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			d := listDevices()
			tc.mutate(&d)
			spec, err := Compile(d)
			if err == nil {
				t.Fatal("Compile accepted the declaration")
			}
			if !errors.Is(err, ErrInvalidDeclaration) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compile = %v\nwant ErrInvalidDeclaration mentioning %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Compile = %v, want it to wrap %v", err, tc.is)
			}
			if !reflect.DeepEqual(spec, tools.ToolSpec{}) {
				t.Error("Compile returned a spec with its error")
			}
		})
	}
}

func TestCompileReportsEveryProblem(t *testing.T) {
	d := listDevices()
	d.Title = ""
	d.Name = "a.b"
	d.Inject = append(d.Inject, "ghost")
	d.Exposure = "x"
	var de *DeclarationError
	if !errors.As(func() error { _, err := Compile(d); return err }(), &de) {
		t.Fatal("want *DeclarationError")
	}
	if len(de.Problems) != 4 {
		t.Errorf("problems = %d, want 4 (ident, inject, title, exposure):\n%v", len(de.Problems), de)
	}
	if strings.Count(de.Error(), "tools: ident") != 1 {
		t.Errorf("the ident problem is reported more than once:\n%v", de)
	}
}

func TestCompiledSpecIsIndependent(t *testing.T) {
	d := listDevices()
	spec, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	before := spec.Clone()
	d.Tags[0] = "changed"
	d.Keywords[0] = "changed"
	d.InputSchema[1] = 'X'
	d.OutputSchema[1] = 'X'
	d.InputExample[1] = 'X'
	d.Meta["ui.icon"][0] = "changed"
	d.Meta["new"] = nil
	d.Bounds.Cursor = "changed"
	d.Confirmation.Title = "changed"
	d.ServerData[0].Schema[1] = 'X'
	d.RequiredLabels[0] = "changed"
	d.Inject[0] = "changed"
	if !reflect.DeepEqual(spec, before) {
		t.Error("mutating the declaration changed the compiled spec")
	}
}

func TestCompileDropsAnEmptiedRequiredList(t *testing.T) {
	spec, err := Compile(ToolDeclaration{
		Toolset: "s", Name: "t", Title: "T",
		InputSchema: json.RawMessage(`{"type":"object","required":["run_id"],"properties":{"run_id":{"type":"string"},"q":{"type":"string"}}}`),
		Inject:      []string{"run_id"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(spec.Payload.Schema); got != `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}` {
		t.Errorf("payload schema = %s", got)
	}
	if spec.RequiredLabels != nil {
		t.Errorf("a meta-backed field added labels %q", spec.RequiredLabels)
	}
}
