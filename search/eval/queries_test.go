package eval

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestReadQueriesFixture(t *testing.T) {
	f, err := os.Open("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadQueries(f, "queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Query{
		{ID: "q1", Query: "Can I find any peer-reviewed papers?", Relevant: []string{"ResearchHelper"}},
		{ID: "q2", Query: "weather in Paris tomorrow", Relevant: []string{"WeatherTool", "word_sneak"}},
		{ID: "q3", Query: "  convert 10 USD to EUR  ", Relevant: []string{"FinanceTool"}},
		{ID: "q4", Query: "no trailing newline", Relevant: []string{"NewsTool"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadQueries =\n%#v\nwant\n%#v", got, want)
	}
}

func TestReadQueriesErrors(t *testing.T) {
	const good = `{"id":"a","query":"find papers","relevant":["R"]}` + "\n"
	for _, c := range []struct {
		name, input, want string
	}{
		{"empty", "", "eval: q.jsonl: no queries"},
		{"only blank lines", "\n  \n\t\n", "eval: q.jsonl: no queries"},
		{"not json", good + "\n{oops\n", "eval: q.jsonl:3: want one JSON object per line"},
		{"array line", `["a"]`, "eval: q.jsonl:1: want one JSON object per line"},
		{"missing id", `{"query":"x","relevant":["R"]}`, `eval: q.jsonl:1: "id" must be a non-empty string`},
		{"empty id", `{"id":"","query":"x","relevant":["R"]}`, `eval: q.jsonl:1: "id" must be a non-empty string`},
		{"numeric id", `{"id":7,"query":"x","relevant":["R"]}`, `eval: q.jsonl:1: "id" must be a non-empty string`},
		{"missing query", `{"id":"a","relevant":["R"]}`, `eval: q.jsonl:1: "query" must be a non-empty string`},
		{"blank query", `{"id":"a","query":"  ","relevant":["R"]}`, `eval: q.jsonl:1: "query" must be a non-empty string`},
		{"missing relevant", good + `{"id":"b","query":"x"}`, `eval: q.jsonl:2: "relevant" must be a non-empty array of tool names`},
		{"null relevant", `{"id":"a","query":"x","relevant":null}`, `eval: q.jsonl:1: "relevant" must be a non-empty array of tool names`},
		{"empty relevant", `{"id":"a","query":"x","relevant":[]}`, `eval: q.jsonl:1: "relevant" must be a non-empty array of tool names`},
		{"string relevant", `{"id":"a","query":"x","relevant":"R"}`, `eval: q.jsonl:1: "relevant" must be a non-empty array of tool names`},
		{"empty name", `{"id":"a","query":"x","relevant":["R",""]}`, `eval: q.jsonl:1: "relevant"[1] is empty: want a tool name`},
		{"repeated name", `{"id":"a","query":"x","relevant":["R","S","R"]}`, `eval: q.jsonl:1: "relevant" lists "R" twice`},
		{"repeated id", good + "\n" + good, `eval: q.jsonl:3: id "a" repeats line 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			qs, err := ReadQueries(strings.NewReader(c.input), "q.jsonl")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("ReadQueries = %v, %v; want error starting %q", qs, err, c.want)
			}
		})
	}
}

// FuzzReadQueries feeds arbitrary bytes to the JSONL reader: it must never
// panic, and whatever it accepts must be usable (ids, texts and relevant
// names non-empty).
func FuzzReadQueries(f *testing.F) {
	f.Add("{\"id\":\"q1\",\"query\":\"find papers\",\"relevant\":[\"ResearchHelper\"]}\n")
	f.Add("\n\n{\"id\":\"q\",\"query\":\"x\",\"relevant\":[]}")
	f.Add("{\"id\":1}")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, data string) {
		qs, err := ReadQueries(strings.NewReader(data), "fuzz.jsonl")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, q := range qs {
			if q.ID == "" || strings.TrimSpace(q.Query) == "" || len(q.Relevant) == 0 {
				t.Fatalf("accepted an unusable query: %+v", q)
			}
			for _, r := range q.Relevant {
				if r == "" {
					t.Fatalf("accepted an empty relevant name: %+v", q)
				}
			}
		}
	})
}
