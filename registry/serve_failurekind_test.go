package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
)

// failingEcho fails each echo call as its text says: "kinded" with a
// failure of a kind of its own (wrapped, as executors wrap), "plain" with
// a plain error, "odd" with a kind and recovery the wire cannot carry.
func failingEcho() toolcall.Executor {
	return registrytest.Returning(func(ctx context.Context, call *toolcall.Call) (json.RawMessage, error) {
		var p struct{ Text string }
		if err := json.Unmarshal(call.Payload, &p); err != nil {
			return nil, err
		}
		switch p.Text {
		case "kinded":
			return nil, fmt.Errorf("weather lookup: %w", toolcall.Fail("unknown_city", toolcall.RecoveryCorrectCall, "No city named %s.", "Atlantis"))
		case "plain":
			return nil, errors.New("the weather service is down")
		case "odd":
			return nil, &toolcall.Failure{Code: "Unknown City!", Recovery: "retry_later", Message: "No city named Atlantis."}
		}
		return json.Marshal(map[string]string{"text": p.Text})
	})
}

// callEcho calls echo with text through the registry, under id.
func callEcho(t *testing.T, c *registry.Client, token, id, text string) *gen.CallOutcome {
	t.Helper()
	out, err := registrytest.Call(c, "echo", "echo", token, id, `{"text":"`+text+`"}`, 10*time.Second)
	if err != nil {
		t.Fatalf("call %s: %v", id, err)
	}
	return out
}

// wantFailure fails unless out is a tool_error with msg, kind and
// recovery ("" for absent).
func wantFailure(t *testing.T, what string, out *gen.CallOutcome, msg, kind, recovery string) {
	t.Helper()
	got := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	if out.Outcome != "tool_error" || got(out.Error) != msg || got(out.ErrorKind) != kind || got(out.ErrorRecovery) != recovery {
		t.Fatalf("%s: outcome %q error %q error_kind %q error_recovery %q; want tool_error %q %q %q",
			what, out.Outcome, got(out.Error), got(out.ErrorKind), got(out.ErrorRecovery), msg, kind, recovery)
	}
	if (out.ErrorKind != nil && *out.ErrorKind == "") || (out.ErrorRecovery != nil && *out.ErrorRecovery == "") {
		t.Fatalf("%s: an empty kind or recovery crossed the wire: %+v", what, out)
	}
}

// An executor's kinded failure crosses the registry: the consumer's answer
// carries the kind and recovery the executor gave, with its message. A
// plain error, or a kind the wire cannot carry, reaches the consumer as a
// failure without a kind (it reads tool_error), its message intact.
func TestServeCarriesTheExecutorsFailureKindToTheConsumer(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	registrytest.Serve(t, c, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, failingEcho())
	ts := registrytest.WaitProviders(t, c, "echo", 1)

	wantFailure(t, "a kinded failure", callEcho(t, c, ts.Token, "kinded-1", "kinded"),
		"No city named Atlantis.", "unknown_city", "correct_call")
	wantFailure(t, "a plain failure", callEcho(t, c, ts.Token, "plain-1", "plain"),
		"The tool failed: the weather service is down", "tool_error", "replan")
	wantFailure(t, "a kind the wire cannot carry", callEcho(t, c, ts.Token, "odd-1", "odd"),
		"No city named Atlantis.", "", "")
	if out := callEcho(t, c, ts.Token, "ok-1", "fine"); out.Outcome != "ok" || out.ErrorKind != nil || out.ErrorRecovery != nil {
		t.Fatalf("a success: %+v", out)
	}
	// The record says it too, and a retry reads it back.
	rec, err := c.GetCall(context.Background(), &gen.GetCallPayload{CallID: "kinded-1"})
	if err != nil || rec.ErrorKind == nil || *rec.ErrorKind != "unknown_city" || rec.ErrorRecovery == nil || *rec.ErrorRecovery != "correct_call" {
		t.Fatalf("get_call: %+v %v", rec, err)
	}
	wantFailure(t, "a retry", callEcho(t, c, ts.Token, "kinded-1", "kinded"),
		"No city named Atlantis.", "unknown_city", "correct_call")
}

// olderNode stands in front of a registry as a node of an earlier version
// would answer: its leases list no features and its strict decoder refuses
// a post_result naming error_kind or error_recovery (as an unknown field).
// listFeatures keeps the features in the lease answers, as a node of this
// version behind the same address would list them (a rolling upgrade).
type olderNode struct {
	URL string

	mu sync.Mutex
	// posts are the post_result bodies received, in order; refused counts
	// those refused.
	posts   []string
	refused int
}

func startOlderNode(t *testing.T, target string, listFeatures bool) *olderNode {
	t.Helper()
	o := &olderNode{}
	p := newFaultProxy(t, target, func(w http.ResponseWriter, r *http.Request, _ int, forward http.Handler) bool {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/result"):
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			o.mu.Lock()
			o.posts = append(o.posts, string(body))
			var fields map[string]json.RawMessage
			_ = json.Unmarshal(body, &fields)
			var unknown string
			for _, name := range []string{"error_kind", "error_recovery"} {
				if _, ok := fields[name]; ok && unknown == "" {
					unknown = name
				}
			}
			if unknown != "" {
				o.refused++
			}
			o.mu.Unlock()
			if unknown == "" {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Goa-Error", "bad_request")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"name": "bad_request", "id": "older", "temporary": false, "timeout": false, "fault": false,
				"message": fmt.Sprintf("unknown field %q: the API defines no such field (names are case-sensitive)", unknown)})
			return true
		case !listFeatures && r.Method == http.MethodPost && (r.URL.Path == "/v1/registrations" || strings.HasSuffix(r.URL.Path, "/renew")):
			rec := httptest.NewRecorder()
			forward.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var answer map[string]json.RawMessage
			if rec.Code < 300 && json.Unmarshal(body, &answer) == nil {
				delete(answer, "features")
				body, _ = json.Marshal(answer)
			}
			for k, v := range rec.Header() {
				if k != "Content-Length" {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
			return true
		}
		return false
	})
	o.URL = p.URL
	return o
}

func (o *olderNode) seen() (posts []string, refused int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.posts...), o.refused
}

// serveThroughOlderNode starts a registry and, in front of it, an older
// node (startOlderNode: its leases list the features when listFeatures),
// and serves failingEcho's provider through that node; it returns the
// node, a consumer of the registry and echo's resolution.
func serveThroughOlderNode(t *testing.T, listFeatures bool) (*olderNode, *registry.Client, *gen.ResolvedToolset) {
	t.Helper()
	r := registrytest.Start(t, registrytest.Options{})
	older := startOlderNode(t, r.URL, listFeatures)
	pc, err := registry.NewClient(older.URL)
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Serve(t, pc, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, failingEcho())
	c := r.Client(t, "")
	return older, c, registrytest.WaitProviders(t, c, "echo", 1)
}

// A provider whose lease lists no failure_kind (an older node) posts the
// error alone: the older node records the outcome and the consumer reads
// the message, without a kind.
func TestServeToAnOlderNodePostsNoFailureKind(t *testing.T) {
	older, c, ts := serveThroughOlderNode(t, false)

	wantFailure(t, "a kinded failure through an older node", callEcho(t, c, ts.Token, "kinded-old", "kinded"),
		"No city named Atlantis.", "", "")
	posts, refused := older.seen()
	if len(posts) != 1 || refused != 0 {
		t.Fatalf("the older node got %d posts, refused %d: %q; want one it accepts", len(posts), refused, posts)
	}
}

// A node that lists failure_kind may sit behind one address with an older
// node that refuses the fields: a post refused so is posted again without
// them, and the outcome is recorded.
func TestServePostsAgainWithoutTheKindWhenANodeRefusesIt(t *testing.T) {
	older, c, ts := serveThroughOlderNode(t, true)

	wantFailure(t, "a kinded failure refused, then posted without its kind", callEcho(t, c, ts.Token, "kinded-mixed", "kinded"),
		"No city named Atlantis.", "", "")
	posts, refused := older.seen()
	if len(posts) != 2 || refused != 1 || !strings.Contains(posts[0], `"error_kind":"unknown_city"`) || strings.Contains(posts[1], "error_kind") || strings.Contains(posts[1], "error_recovery") {
		t.Fatalf("posts %q, refused %d; want the kinded post refused, then one without the kind", posts, refused)
	}
}
