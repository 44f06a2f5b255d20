package providerfake_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestAnswersInOrderAndRecordsEveryRequest(t *testing.T) {
	s := providerfake.New(t, "/v1/messages",
		providerfake.OK(`{"n":1}`),
		providerfake.Answer{Status: http.StatusTooManyRequests, Body: `{"n":2}`, Header: map[string]string{"request-id": "req_2"}},
		providerfake.Answer{Body: "data: [DONE]\n\n", Header: map[string]string{"Content-Type": "text/event-stream"}},
	)
	for i, want := range []struct {
		status      int
		body, ctype string
	}{
		{200, `{"n":1}`, "application/json"},
		{429, `{"n":2}`, "application/json"},
		{200, "data: [DONE]\n\n", "text/event-stream"},
	} {
		resp, body := post(t, s.URL()+"/v1/messages", fmt.Sprintf(`{"i":%d}`, i))
		if resp.StatusCode != want.status || body != want.body || resp.Header.Get("Content-Type") != want.ctype {
			t.Fatalf("answer %d: %d %q %q, want %d %q %q", i, resp.StatusCode, resp.Header.Get("Content-Type"), body, want.status, want.ctype, want.body)
		}
		if i == 1 && resp.Header.Get("request-id") != "req_2" {
			t.Fatalf("answer 2 lacks its header: %v", resp.Header)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	for i, r := range reqs {
		if r.Method != http.MethodPost || r.Path != "/v1/messages" || r.Header.Get("Content-Type") != "application/json" || string(r.Body) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Fatalf("request %d recorded as %+v", i, r)
		}
	}
	if got := s.Body(2)["i"]; got != float64(2) {
		t.Fatalf("Body(2)[i] = %v", got)
	}
}

func TestAnUnexpectedPathOrAnUnscriptedRequestFailsTheTest(t *testing.T) {
	rec := &recorder{TB: t}
	s := providerfake.New(rec, "/responses", providerfake.OK(`{}`))
	if resp, _ := post(t, s.URL()+"/v1/responses", `{}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("wrong path: HTTP %d", resp.StatusCode)
	}
	// The wrong path consumed no answer.
	if resp, body := post(t, s.URL()+"/responses", `{}`); resp.StatusCode != http.StatusOK || body != `{}` {
		t.Fatalf("first scripted answer: HTTP %d %s", resp.StatusCode, body)
	}
	if resp, _ := post(t, s.URL()+"/responses", `{"late":true}`); resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("unscripted: HTTP %d", resp.StatusCode)
	}
	errs := rec.errors()
	if len(errs) != 2 || !strings.Contains(errs[0], "POST /v1/responses, want POST /responses") || !strings.Contains(errs[1], `unscripted request 3 (1 answers scripted): {"late":true}`) {
		t.Fatalf("errors = %q", errs)
	}
	if n := len(s.Requests()); n != 3 {
		t.Fatalf("%d requests recorded, want all 3", n)
	}
}

func TestAssertJSONComparesValues(t *testing.T) {
	providerfake.AssertJSON(t, "body", []byte(`{"b":[1,2.0],"a":null}`), `{ "a": null, "b": [1, 2.0] }`)
}
