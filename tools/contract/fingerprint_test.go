package contract

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/tools"
)

var fingerprintRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func mustFingerprint(t testing.TB, ts ToolsetDeclaration) string {
	t.Helper()
	fp, err := Fingerprint(ts)
	if err != nil {
		t.Fatal(err)
	}
	if !fingerprintRE.MatchString(fp) {
		t.Fatalf("fingerprint %q is not sha256:<64 hex>", fp)
	}
	return fp
}

func TestFingerprintIgnoresPresentation(t *testing.T) {
	base := mustFingerprint(t, fingerprintToolset())
	cases := []struct {
		rule   string
		mutate func(*ToolsetDeclaration)
	}{
		{"the registration time is excluded", func(ts *ToolsetDeclaration) { ts.RegisteredAt = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"key order inside schemas does not count", func(ts *ToolsetDeclaration) {
			ts.Tools[0].InputSchema = json.RawMessage(`{"required":["query"],"properties":{"limit":{"maximum":100,"type":"integer"},"query":{"type":"string"}},"type":"object"}`)
		}},
		{"whitespace inside schemas does not count", func(ts *ToolsetDeclaration) {
			ts.Tools[0].InputSchema = json.RawMessage("{ \"type\" : \"object\",\n \"properties\": {\"query\": {\"type\": \"string\"}, \"limit\": {\"type\": \"integer\", \"maximum\": 100}},\n \"required\": [\"query\"] }")
		}},
		{"number spelling does not count", func(ts *ToolsetDeclaration) {
			ts.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":1e2}},"required":["query"]}`)
		}},
		{"tool order does not count", func(ts *ToolsetDeclaration) { slices.Reverse(ts.Tools) }},
		{"an empty tool toolset means the set's", func(ts *ToolsetDeclaration) { ts.Tools[0].Toolset = "docs" }},
		{"nil and empty lists are the same", func(ts *ToolsetDeclaration) { ts.Tools[1].Keywords = []string{} }},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			ts := fingerprintToolset()
			tc.mutate(&ts)
			if got := mustFingerprint(t, ts); got != base {
				t.Errorf("fingerprint changed: %s != %s", got, base)
			}
		})
	}
}

func TestFingerprintSeesSemanticChanges(t *testing.T) {
	base := mustFingerprint(t, fingerprintToolset())
	cases := []struct {
		rule   string
		mutate func(*ToolsetDeclaration)
	}{
		{"toolset description", func(ts *ToolsetDeclaration) { ts.Description += "." }},
		{"toolset tag", func(ts *ToolsetDeclaration) { ts.Tags = append(ts.Tags, "beta") }},
		{"toolset version", func(ts *ToolsetDeclaration) { ts.Version = "1.2.4" }},
		{"tool description", func(ts *ToolsetDeclaration) { ts.Tools[0].Description = "Find pages" }},
		{"tool tag", func(ts *ToolsetDeclaration) { ts.Tools[0].Tags = []string{"search", "write"} }},
		{"tag order", func(ts *ToolsetDeclaration) { slices.Reverse(ts.Tools[0].Tags) }},
		{"tool title", func(ts *ToolsetDeclaration) { ts.Tools[0].Title = "Find" }},
		{"keyword", func(ts *ToolsetDeclaration) { ts.Tools[0].Keywords = nil }},
		{"schema keyword", func(ts *ToolsetDeclaration) {
			ts.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":101}},"required":["query"]}`)
		}},
		{"required entry", func(ts *ToolsetDeclaration) {
			ts.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":100}},"required":["query","limit"]}`)
		}},
		{"output schema", func(ts *ToolsetDeclaration) { ts.Tools[1].OutputSchema = json.RawMessage(`{"type":"object"}`) }},
		{"confirmation", func(ts *ToolsetDeclaration) {
			ts.Tools[1].Confirmation = &tools.ConfirmationSpec{PromptTemplate: "Delete {{ .id }}?"}
		}},
		{"confirmation template", func(ts *ToolsetDeclaration) { ts.Tools[0].Confirmation.PromptTemplate = "Search {{ .q }}?" }},
		{"bounds", func(ts *ToolsetDeclaration) { ts.Tools[0].Bounds = nil }},
		{"injected field", func(ts *ToolsetDeclaration) { ts.Tools[1].Inject = []string{"session_id"} }},
		{"required label", func(ts *ToolsetDeclaration) { ts.Tools[1].RequiredLabels = []string{"tenant"} }},
		{"server data audience", func(ts *ToolsetDeclaration) { ts.Tools[1].ServerData[0].Audience = tools.AudienceEvidence }},
		{"meta", func(ts *ToolsetDeclaration) { ts.Tools[1].Meta = map[string][]string{"k": {"v"}} }},
		{"exposure", func(ts *ToolsetDeclaration) { ts.Tools[1].Exposure = tools.ExposureFull }},
		{"tool renamed", func(ts *ToolsetDeclaration) { ts.Tools[1].Name = "remove" }},
		{"tool dropped", func(ts *ToolsetDeclaration) { ts.Tools = ts.Tools[:1] }},
	}
	seen := map[string]string{base: "base"}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			ts := fingerprintToolset()
			tc.mutate(&ts)
			got := mustFingerprint(t, ts)
			if prev, dup := seen[got]; dup {
				t.Errorf("fingerprint equals the one of %q", prev)
			}
			seen[got] = tc.rule
		})
	}
}

func TestFingerprintTool(t *testing.T) {
	ts := fingerprintToolset()
	a, err := FingerprintTool(ts.Tools[0])
	if err != nil || !fingerprintRE.MatchString(a) {
		t.Fatalf("FingerprintTool = %q, %v", a, err)
	}
	d := ts.Tools[0]
	d.InputSchema = json.RawMessage(`{"required":["query"],"type":"object","properties":{"limit":{"maximum":100,"type":"integer"},"query":{"type":"string"}}}`)
	if b, _ := FingerprintTool(d); b != a {
		t.Error("key order changed the tool fingerprint")
	}
	d.Description = "other"
	if b, _ := FingerprintTool(d); b == a {
		t.Error("description did not change the tool fingerprint")
	}
	d.InputSchema = json.RawMessage(`{"type":`)
	if _, err := FingerprintTool(d); err == nil || !strings.HasPrefix(err.Error(), "contract: fingerprint tool") {
		t.Errorf("malformed schema: %v", err)
	}
}

func fingerprintToolset() ToolsetDeclaration {
	return ToolsetDeclaration{
		Name: "docs", Description: "Documentation tools", Tags: []string{"docs"}, Version: "1.2.3",
		RegisteredAt: time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC),
		Tools: []ToolDeclaration{
			{Name: "search", Title: "Search", Description: "Search pages", Tags: []string{"search", "read"}, Keywords: []string{"find"},
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":100}},"required":["query"]}`),
				Confirmation: &tools.ConfirmationSpec{PromptTemplate: "Search {{ .query }}?"},
				Bounds:       &tools.BoundsSpec{ContinueWith: "delete"}},
			{Toolset: "docs", Name: "delete", Title: "Delete", InputSchema: json.RawMessage(`{"type":"object"}`),
				ServerData: []ServerDataDeclaration{{Kind: "audit", Audience: tools.AudienceInternal}}},
		},
	}
}

// shuffledJSON re-encodes a parsed JSON value with object keys in random
// order.
func shuffledJSON(r *rand.Rand, v any) []byte {
	var b bytes.Buffer
	var write func(any)
	write = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				kb, _ := json.Marshal(k)
				b.Write(kb)
				b.WriteByte(':')
				write(v[k])
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range v {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		default:
			eb, _ := json.Marshal(v)
			b.Write(eb)
		}
	}
	write(v)
	return b.Bytes()
}

func FuzzFingerprintKeyOrder(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string"},"b":{"enum":[1,2.5,"x",null,true]}},"required":["a"]}`, uint64(1))
	f.Add(`{"z":{"y":{"x":{"w":[{"b":1,"a":2}]}}},"\u00e9":"\ud83d\ude00","a\"b":-0.0}`, uint64(7))
	f.Add(`{"n":12345678901234567890,"f":1e-7,"g":1E21}`, uint64(3))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil || v == nil {
			return
		}
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		a, b := shuffledJSON(r, v), shuffledJSON(r, v)
		ts := ToolsetDeclaration{Name: "fz", Tools: []ToolDeclaration{{Name: "t", InputSchema: a}}}
		fa, errA := Fingerprint(ts)
		ts.Tools[0].InputSchema = b
		ts.RegisteredAt = time.Unix(int64(seed%1e9), 0)
		fb, errB := Fingerprint(ts)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("fingerprint errors differ: %v vs %v", errA, errB)
		}
		if fa != fb {
			t.Fatalf("key order changed the fingerprint:\n%s\n%s", a, b)
		}
	})
}
