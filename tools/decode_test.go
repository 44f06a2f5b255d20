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

func TestDecodeOverwritesValuesTheModelForged(t *testing.T) {
	spec := lookupSpec(t)
	// The model cannot see injected fields; the schema it reads forbids
	// nothing, so a forged value must simply lose.
	p, err := tools.Decode[lookupPayload](spec, json.RawMessage(`{"query":"bills","session_id":"forged"}`), tools.CallMeta{SessionID: "s-42"}, map[string]string{"household_id": "home-7"})
	if err != nil {
		t.Fatal(err)
	}
	if p.SessionID != "s-42" {
		t.Fatalf("session_id = %q, want the injected s-42", p.SessionID)
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
	if _, err := tools.Decode[lookupPayload](spec, json.RawMessage(`{"query":"x"}`), tools.CallMeta{}, map[string]string{"household_id": "Not Valid"}); err == nil || !strings.Contains(err.Error(), "does not fit field") {
		t.Errorf("label breaking the field's pattern: err = %v", err)
	}
}

// FuzzDecode feeds arbitrary payloads and label values to Decode: it must
// never panic, and a payload it accepts always carries the injected values.
func FuzzDecode(f *testing.F) {
	f.Add(`{"query":"bills"}`, "home-7")
	f.Add(`{"query":"bills","session_id":{"nested":true}}`, "BAD VALUE")
	f.Add(`[]`, "")
	f.Add("\xff", "x")
	spec := lookupSpec(f)
	f.Fuzz(func(t *testing.T, payload, household string) {
		p, err := tools.Decode[lookupPayload](spec, json.RawMessage(payload), tools.CallMeta{SessionID: "s-1"}, map[string]string{"household_id": household})
		if err != nil {
			return
		}
		if p.SessionID != "s-1" || p.Household != household {
			t.Fatalf("accepted payload %q decoded to %+v without its injected values", payload, p)
		}
	})
}
