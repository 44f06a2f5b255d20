package tools_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

type lookupPayload struct {
	Query     string `json:"query"`
	SessionID string `json:"session_id"`
	Household string `json:"household_id"`
}

func lookupSpec(t testing.TB) tools.ToolSpec {
	t.Helper()
	spec, err := contract.Compile(contract.ToolDeclaration{
		Toolset:     "homes",
		Name:        "lookup",
		Title:       "Lookup",
		Description: "Look up a household's records.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"query":{"type":"string"},
			"session_id":{"type":"string"},
			"household_id":{"type":"string","pattern":"^[a-z0-9-]+$"}},
			"required":["query","session_id","household_id"]}`),
		Inject: []string{"session_id", "household_id"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestDecodeInjectsMetaAndLabelFields(t *testing.T) {
	spec := lookupSpec(t)
	meta := tools.CallMeta{RunID: "r1", SessionID: "s-42"}
	p, err := tools.Decode[lookupPayload](spec, json.RawMessage(`{"query":"bills"}`), meta, map[string]string{"household_id": "home-7"})
	if err != nil {
		t.Fatal(err)
	}
	if p != (lookupPayload{Query: "bills", SessionID: "s-42", Household: "home-7"}) {
		t.Fatalf("decoded %+v", p)
	}
}

func TestDecodeRefusesInjectedFieldsInAnySpelling(t *testing.T) {
	spec := lookupSpec(t)
	labels := map[string]string{"household_id": "home-7"}
	for _, payload := range []string{
		`{"query":"bills","session_id":"forged"}`,
		`{"query":"bills","SESSION_ID":"forged"}`,
		`{"query":"bills","houſehold_id":"forged"}`, // U+017F, long s
		`{"query":"bills","Household_ID":"forged"}`,
		`{"query":"bills","session\u005fid":"forged"}`,
	} {
		p, err := tools.Decode[lookupPayload](spec, json.RawMessage(payload), tools.CallMeta{SessionID: "s-42"}, labels)
		var pe *tools.PayloadError
		if !errors.As(err, &pe) || !pe.Has(tools.PayloadInjectedField) {
			t.Errorf("%s: err = %v, decoded %+v; want the injected field refused", payload, err, p)
			continue
		}
		if strings.Contains(err.Error(), "forged") {
			t.Errorf("%s: the error echoes the forged value: %v", payload, err)
		}
	}
}

func TestDecodeMatchesKeysExactly(t *testing.T) {
	spec := lookupSpec(t)
	labels := map[string]string{"household_id": "home-7"}
	for _, payload := range []string{
		`{"query":"bills","QUERY":"evil"}`,
		`{"query":"bills","Query":"evil"}`,
		`{"query":"bills","query":"evil"}`,
		`{"qυery":"bills"}`,
	} {
		p, err := tools.Decode[lookupPayload](spec, json.RawMessage(payload), tools.CallMeta{}, labels)
		if err == nil {
			t.Errorf("%s: accepted as %+v", payload, p)
		}
		if p.Query == "evil" {
			t.Errorf("%s: decoded the variant's value", payload)
		}
	}
}

func TestDecodeRejectsBadPayloadsAndLabels(t *testing.T) {
	spec := lookupSpec(t)
	labels := map[string]string{"household_id": "home-7"}
	if _, err := tools.Decode[lookupPayload](spec, json.RawMessage(`{"query":3}`), tools.CallMeta{}, labels); !errors.Is(err, tools.ErrSchemaViolation) {
		t.Errorf("invalid payload: err = %v", err)
	}
	if _, err := tools.Decode[lookupPayload](spec, json.RawMessage(`{"query":"x"}`), tools.CallMeta{}, nil); err == nil || !strings.Contains(err.Error(), `run label "household_id"`) {
		t.Errorf("missing label: err = %v", err)
	}
	_, err := tools.Decode[lookupPayload](spec, json.RawMessage(`{"query":"x"}`), tools.CallMeta{}, map[string]string{"household_id": "Not Valid SECRET"})
	var ie *tools.InjectionError
	if !errors.As(err, &ie) || ie.Field != "household_id" || ie.Cause == nil {
		t.Fatalf("label breaking the field's pattern: err = %v", err)
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("the error echoes the label's value: %v", err)
	}
}

// FuzzDecode feeds arbitrary payloads and label values to Decode: it must
// never panic, and a payload it accepts always carries the injected values.
func FuzzDecode(f *testing.F) {
	f.Add(`{"query":"bills"}`, "home-7")
	f.Add(`{"query":"bills","session_id":{"nested":true}}`, "BAD VALUE")
	f.Add(`[]`, "")
	f.Add("\xff", "x")
	f.Add(`{"query":"a","SESSION_ID":"forged"}`, "home-7")
	f.Add(`{"query":"a","query":"b"}`, "home-7")
	spec := lookupSpec(f)
	f.Fuzz(func(t *testing.T, payload, household string) {
		p, err := tools.Decode[lookupPayload](spec, json.RawMessage(payload), tools.CallMeta{SessionID: "s-1"}, map[string]string{"household_id": household})
		if err != nil {
			return
		}
		if p.SessionID != "s-1" || p.Household != household {
			t.Fatalf("accepted payload %q decoded to %+v without its injected values", payload, p)
		}
		if strings.Contains(strings.ToLower(payload), "session") || strings.Contains(payload, "ſ") {
			// Accepted payloads may not name an injected field in any
			// spelling: the decoded values above prove injection won, and
			// the canonical form must not carry the model's key.
			canonical, err := tools.CanonicalPayload(spec, json.RawMessage(payload), tools.PayloadLimits{})
			if err == nil && strings.Contains(strings.ToLower(string(canonical)), `"session_id"`) {
				t.Fatalf("canonical form of %q keeps a session_id key: %s", payload, canonical)
			}
		}
	})
}
