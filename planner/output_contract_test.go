package planner_test

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/planner"
)

func TestOutputContractErrorNamesCompletionAndViolations(t *testing.T) {
	cases := []struct {
		name string
		err  *planner.OutputContractError
		want []string
	}{
		{"one", &planner.OutputContractError{Completion: "report", Violations: []string{"temp: is required"}},
			[]string{`completion "report"`, ": temp: is required"}},
		{"several", &planner.OutputContractError{Completion: "report", Violations: []string{"city: is required", "temp: must be number"}},
			[]string{`completion "report"`, "\n  city: is required", "\n  temp: must be number"}},
		{"none", &planner.OutputContractError{Completion: "report"}, []string{`completion "report"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := tc.err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("Error() = %q, want it to contain %q", msg, w)
				}
			}
			if tc.err.Recoverable() {
				t.Error("Recoverable() = true, want false")
			}
		})
	}
}
