package tools_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools"
)

// orderSpec is a tool whose payload nests a declared user type, so key
// checks must follow "$ref" into "$defs" and array items.
func orderSpec(t testing.TB) tools.ToolSpec {
	t.Helper()
	return tools.ToolSpec{
		Name:  "shop.cancelOrder",
		Title: "Cancel order",
		Payload: tools.MustTypeSpec("CancelOrderPayload", json.RawMessage(`{
			"type":"object",
			"properties":{
				"order_id":{"type":"string"},
				"lines":{"type":"array","items":{"$ref":"#/$defs/Line"}},
				"tags":{"type":"object","additionalProperties":{"type":"string"}}
			},
			"$defs":{"Line":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}}}}
		}`)),
		Inject: []tools.InjectedField{tools.ClassifyInjected("user_id")},
	}
}

func problemKinds(t *testing.T, err error) []tools.PayloadProblemKind {
	t.Helper()
	var pe *tools.PayloadError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *PayloadError", err)
	}
	if !errors.Is(err, tools.ErrInvalidPayload) {
		t.Fatalf("%v does not match ErrInvalidPayload", err)
	}
	var kinds []tools.PayloadProblemKind
	for _, p := range pe.Problems {
		kinds = append(kinds, p.Kind)
	}
	return kinds
}

func TestCanonicalPayloadRefuses(t *testing.T) {
	spec := orderSpec(t)
	cases := []struct {
		name, payload string
		kind          tools.PayloadProblemKind
		path          string
	}{
		{"duplicate key", `{"order_id":"A-1","order_id":"VIP-999"}`, tools.PayloadDuplicateKey, "order_id"},
		{"duplicate escaped key", `{"order_id":"A-1","order\u005fid":"VIP-999"}`, tools.PayloadDuplicateKey, "order_id"},
		{"ASCII case variant", `{"order_id":"A-1","ORDER_ID":"VIP-999"}`, tools.PayloadKeyVariant, "ORDER_ID"},
		{"Unicode fold variant", `{"order_id":"A-1","order_İd":"VIP-999","ordeR_id":"x"}`, tools.PayloadKeyVariant, "ordeR_id"},
		{"Kelvin sign in a nested key", `{"lines":[{"s\u212Au":"x"}]}`, tools.PayloadKeyVariant, "lines[0][\"s\u212au\"]"},
		{"nested duplicate", `{"lines":[{"sku":"a","sku":"b"}]}`, tools.PayloadDuplicateKey, "lines[0].sku"},
		{"injected field", `{"order_id":"A-1","user_id":"mallory"}`, tools.PayloadInjectedField, "user_id"},
		{"injected field, long s", `{"order_id":"A-1","uſer_id":"mallory"}`, tools.PayloadInjectedField, `["uſer_id"]`},
		{"injected field, upper case", `{"USER_ID":"mallory"}`, tools.PayloadInjectedField, "USER_ID"},
		{"not an object", `["order_id"]`, tools.PayloadNotObject, ""},
		{"invalid UTF-8", "{\"order_id\":\"A-1\xff\"}", tools.PayloadMalformed, ""},
		{"trailing data", `{"order_id":"A-1"} {"order_id":"B"}`, tools.PayloadMalformed, ""},
		{"incomplete", `{"order_id":`, tools.PayloadMalformed, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tools.CanonicalPayload(spec, json.RawMessage(c.payload), tools.PayloadLimits{})
			kinds := problemKinds(t, err)
			if kinds[0] != c.kind {
				t.Fatalf("kinds %v, want %s first: %v", kinds, c.kind, err)
			}
			var pe *tools.PayloadError
			errors.As(err, &pe)
			found := false
			for _, p := range pe.Problems {
				found = found || p.Path == c.path
			}
			if !found {
				t.Fatalf("no problem at path %q: %v", c.path, err)
			}
			for _, secret := range []string{"mallory", "VIP-999"} {
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("the error echoes the value %q: %v", secret, err)
				}
			}
		})
	}
}

func TestCanonicalPayloadForm(t *testing.T) {
	spec := orderSpec(t)
	got, err := tools.CanonicalPayload(spec, json.RawMessage(` { "order_id" : "A\u002d1<&>", "lines":[{"qty":12345678901234567890123,"sku":"x"}], "tags":{"b":"2","B":"1"} } `), tools.PayloadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"lines":[{"qty":12345678901234567890123,"sku":"x"}],"order_id":"A-1<&>","tags":{"B":"1","b":"2"}}`
	if string(got) != want {
		t.Fatalf("canonical\n got %s\nwant %s", got, want)
	}
	again, err := tools.CanonicalPayload(spec, got, tools.PayloadLimits{})
	if err != nil || string(again) != string(got) {
		t.Fatalf("canonical form is not a fixed point: %s, %v", again, err)
	}
	if empty, err := tools.CanonicalPayload(spec, nil, tools.PayloadLimits{}); err != nil || string(empty) != "{}" {
		t.Fatalf("empty payload: %s, %v", empty, err)
	}
	d := tools.PayloadDigest(got)
	if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 || d == tools.PayloadDigest([]byte(`{}`)) {
		t.Fatalf("digest %q", d)
	}
}

func TestCanonicalPayloadLimits(t *testing.T) {
	spec := orderSpec(t)
	big := `{"order_id":"` + strings.Repeat("x", 2<<20) + `"}`
	_, err := tools.CanonicalPayload(spec, json.RawMessage(big), tools.PayloadLimits{})
	if k := problemKinds(t, err); k[0] != tools.PayloadTooLarge || !strings.Contains(err.Error(), "1048576") {
		t.Fatalf("2 MiB payload: %v", err)
	}
	if _, err := tools.CanonicalPayload(spec, json.RawMessage(big), tools.PayloadLimits{MaxBytes: 4 << 20}); err != nil {
		t.Fatalf("raised limit: %v", err)
	}
	deep := `{"tags":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`
	_, err = tools.CanonicalPayload(spec, json.RawMessage(deep), tools.PayloadLimits{MaxBytes: 1 << 20})
	if k := problemKinds(t, err); k[0] != tools.PayloadTooDeep || !strings.Contains(err.Error(), "64") {
		t.Fatalf("depth 100,000: %v", err)
	}
	ok := `{"tags":` + strings.Repeat("[", 62) + strings.Repeat("]", 62) + `}`
	if _, err := tools.CanonicalPayload(spec, json.RawMessage(ok), tools.PayloadLimits{}); err != nil {
		t.Fatalf("depth 64 is allowed: %v", err)
	}
	if _, err := tools.CanonicalPayload(spec, json.RawMessage(`{"tags":[[[]]]}`), tools.PayloadLimits{MaxDepth: 3}); err == nil {
		t.Fatal("depth 4 passed a limit of 3")
	}
}

// FuzzCanonicalPayload: CanonicalPayload never panics; what it accepts is a
// fixed point, parses to one JSON object, and never keeps a key that is a
// case or folding variant of a declared property or an injected field.
func FuzzCanonicalPayload(f *testing.F) {
	for _, s := range []string{`{}`, `{"order_id":"A-1","ORDER_ID":"B"}`, `{"uſer_id":"m"}`, `{"lines":[{"sku":"a","qty":1}]}`, `{"a":1,"a":2}`, `[`, "\xff"} {
		f.Add(s)
	}
	spec := orderSpec(f)
	f.Fuzz(func(t *testing.T, payload string) {
		c, err := tools.CanonicalPayload(spec, json.RawMessage(payload), tools.PayloadLimits{})
		if err != nil {
			if !errors.Is(err, tools.ErrInvalidPayload) {
				t.Fatalf("error %v does not match ErrInvalidPayload", err)
			}
			return
		}
		again, err := tools.CanonicalPayload(spec, c, tools.PayloadLimits{})
		if err != nil || string(again) != string(c) {
			t.Fatalf("%q: canonical %s is not a fixed point (%s, %v)", payload, c, again, err)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(c, &obj); err != nil {
			t.Fatalf("canonical %s is not an object: %v", c, err)
		}
		for k := range obj {
			for _, d := range []string{"order_id", "lines", "tags", "user_id"} {
				if k != d && strings.EqualFold(k, d) || k == "user_id" {
					t.Fatalf("%q: canonical form keeps key %q", payload, k)
				}
			}
		}
	})
}
