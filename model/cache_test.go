package model

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestRequestedNamesTheCheckpointsInOrder(t *testing.T) {
	for _, tc := range []struct {
		c    CacheCheckpoints
		want []CacheCheckpoint
	}{
		{CacheCheckpoints{}, nil},
		{CacheCheckpoints{AfterTools: true}, []CacheCheckpoint{CheckpointAfterTools}},
		{CacheCheckpoints{AfterSystem: true, AfterTools: true}, []CacheCheckpoint{CheckpointAfterSystem, CheckpointAfterTools}},
	} {
		if got := tc.c.Requested(); !slices.Equal(got, tc.want) {
			t.Errorf("%+v.Requested() = %v, want %v", tc.c, got, tc.want)
		}
	}
}

func TestCheckpointNamesAreTheRequestsJSONFields(t *testing.T) {
	raw, err := json.Marshal(CacheCheckpoints{AfterSystem: true, AfterTools: true})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]bool
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	for _, cp := range []CacheCheckpoint{CheckpointAfterSystem, CheckpointAfterTools} {
		if !fields[string(cp)] {
			t.Errorf("%q is not a JSON field of CacheCheckpoints (%s)", cp, raw)
		}
	}
}

func TestAddCheckpointsKeepsOrderWithoutRepeats(t *testing.T) {
	got := AddCheckpoints(nil, CheckpointAfterTools)
	got = AddCheckpoints(got, CheckpointAfterSystem, CheckpointAfterTools, CheckpointAfterSystem)
	if want := []CacheCheckpoint{CheckpointAfterTools, CheckpointAfterSystem}; !slices.Equal(got, want) {
		t.Fatalf("AddCheckpoints = %v, want %v", got, want)
	}
	if AddCheckpoints(nil) != nil {
		t.Fatal("adding nothing to nothing is not nil")
	}
}

func TestIgnoredCheckpointsRoundTripThroughJSON(t *testing.T) {
	in := Response{Messages: []Message{AssistantMessage("ok")}, IgnoredCheckpoints: []CacheCheckpoint{CheckpointAfterTools}}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Response
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.IgnoredCheckpoints, in.IgnoredCheckpoints) {
		t.Fatalf("round trip: %s", raw)
	}
}
