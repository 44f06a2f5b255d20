package tools

import "testing"

func TestClassifyInjected(t *testing.T) {
	meta := map[string]MetaField{
		"run_id": MetaRunID, "runId": MetaRunID, "RunID": MetaRunID, "runID": MetaRunID, "run-id": MetaRunID,
		"session_id": MetaSessionID, "sessionId": MetaSessionID, "SessionID": MetaSessionID, "SESSION_ID": MetaSessionID,
		"turn_id": MetaTurnID, "turnId": MetaTurnID,
		"tool_call_id": MetaToolCallID, "toolCallId": MetaToolCallID, "ToolCallID": MetaToolCallID,
		"parent_tool_call_id": MetaParentToolCallID, "parentToolCallId": MetaParentToolCallID,
	}
	for name, want := range meta {
		t.Run("meta-backed/"+name, func(t *testing.T) {
			f := ClassifyInjected(name)
			if f.Source != InjectMeta || f.Meta != want || f.Name != name {
				t.Errorf("ClassifyInjected(%q) = %+v, want meta %s", name, f, want)
			}
		})
	}
	// Names whose Go form is not one of the five fields are label-backed,
	// keyed by the name as written.
	for _, name := range []string{"household_id", "sessionid", "session", "id", "user_session_id", "run_id_2", "tool_call", "Household-ID"} {
		t.Run("label-backed/"+name, func(t *testing.T) {
			f := ClassifyInjected(name)
			if f.Source != InjectLabel || f.Meta != "" || f.Name != name {
				t.Errorf("ClassifyInjected(%q) = %+v, want label-backed", name, f)
			}
		})
	}
}

func TestCallMetaField(t *testing.T) {
	m := CallMeta{RunID: "r", SessionID: "s", TurnID: "t", ToolCallID: "c", ParentToolCallID: "p"}
	for name, want := range map[string]string{"run_id": "r", "sessionId": "s", "TurnID": "t", "tool_call_id": "c", "parentToolCallId": "p"} {
		if got, ok := m.Field(name); !ok || got != want {
			t.Errorf("Field(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := m.Field("household_id"); ok {
		t.Error("Field(household_id) is label-backed, want ok=false")
	}
}

func TestInjectedFieldValue(t *testing.T) {
	meta := CallMeta{SessionID: "s1"}
	labels := map[string]string{"household_id": "h1", "session_id": "from-label"}
	cases := []struct {
		rule, name, want string
		ok               bool
	}{
		{"meta-backed fields read CallMeta, never labels", "session_id", "s1", true},
		{"label-backed fields read the label named as declared", "household_id", "h1", true},
		{"a missing label is reported", "tenant", "", false},
		{"an empty meta value is reported", "run_id", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			got, ok := ClassifyInjected(tc.name).Value(meta, labels)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Value = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
