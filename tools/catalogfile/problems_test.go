package catalogfile_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

// Every tool's problem is reported, in file order, each with its position:
// a name the runtime refuses, a schema it refuses (found by the parallel
// checks) and a duplicate, with good tools between them.
func TestReadReportsEveryProblemInFileOrder(t *testing.T) {
	doc := `{"tools":[
 {"name":"bad one","inputSchema":{"type":"object"}},
 {"name":"fine","inputSchema":{"type":"object"}},
 {"name":"schema","inputSchema":{"type":"object","properties":{"a":{"type":"nope"}}}},
 {"name":"fine","inputSchema":{"type":"object"}}
]}`
	_, err := catalogfile.Read(strings.NewReader(doc), "c.json")
	var problems catalogfile.Problems
	if !errors.As(err, &problems) {
		t.Fatalf("err = %v (%T), want Problems", err, err)
	}
	var where []string
	for _, p := range problems {
		where = append(where, fmt.Sprintf("%d:%s", p.Line, p.Path))
	}
	if got, want := strings.Join(where, " "), "2:tools[0].name 4:tools[2].inputSchema 5:tools[3].name"; got != want {
		t.Fatalf("problems at %s, want %s", got, want)
	}
	if !errors.Is(err, catalogfile.ErrInvalidName) {
		t.Error("the joined error does not match the name problem's sentinel")
	}
	var first *catalogfile.Error
	if !errors.As(err, &first) || first.Path != "tools[0].name" {
		t.Errorf("errors.As finds %+v, want the first problem", first)
	}
	if lines := strings.Count(err.Error(), "\n") + 1; lines != len(problems) {
		t.Errorf("message has %d lines for %d problems:\n%v", lines, len(problems), err)
	}
}

// One problem is that problem's *Error alone, as before.
func TestReadWithOneProblemFailsWithItsError(t *testing.T) {
	_, err := catalogfile.Read(strings.NewReader(`{"tools":[{"name":"bad one"}]}`), "c.json")
	var e *catalogfile.Error
	var problems catalogfile.Problems
	if !errors.As(err, &e) || errors.As(err, &problems) {
		t.Fatalf("err = %v (%T), want one *Error", err, err)
	}
}

// The read stops at MaxProblems, and says so.
func TestReadStopsAtMaxProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range catalogfile.MaxProblems + 5 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"bad %d"}`, i)
	}
	b.WriteString(`]}`)
	_, err := catalogfile.Read(strings.NewReader(b.String()), "c.json")
	var problems catalogfile.Problems
	if !errors.As(err, &problems) || len(problems) != catalogfile.MaxProblems || !strings.Contains(err.Error(), "stopped after") {
		t.Fatalf("%d problems, err:\n%v", len(problems), err)
	}
}

// A syntax error after a tool's problem is reported after it: the read
// cannot go on past it.
func TestReadReportsASyntaxErrorAfterTheProblemsBeforeIt(t *testing.T) {
	_, err := catalogfile.Read(strings.NewReader(`{"tools":[{"name":"bad one"},{"name":}]}`), "c.json")
	var problems catalogfile.Problems
	if !errors.As(err, &problems) || len(problems) != 2 || problems[0].Path != "tools[0].name" {
		t.Fatalf("err = %v", err)
	}
}
