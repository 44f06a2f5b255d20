package runsse_test

import (
	"bufio"
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/runsse"
)

// unauthorized is an Authorize error answered 401 with its text: it
// implements StatusCode.
type unauthorized string

func (u unauthorized) Error() string { return string(u) }

func (unauthorized) StatusCode() int { return http.StatusUnauthorized }

// The application mounts the handler on its mux under a {run} wildcard
// and authorizes with bearer tokens: a token names a user, and a user
// reads the runs the application started for them. A browser page would
// follow the same URL with EventSource (authenticated by its session
// cookie: EventSource sends no Authorization header).
func Example() {
	ctx := context.Background()
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, scripted.New(scripted.Reply("Hello."))))
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "desk", Planner: planner.NewStandard()}); err != nil {
		panic(err)
	}

	users := map[string]string{"tok-alice": "alice"} // token → user
	owners := map[string]string{"run-1": "alice"}    // run → user who started it
	events, err := runsse.New(rt.RunLog(), runsse.Options{
		Authorize: func(r *http.Request, runID string) error {
			token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok {
				return unauthorized("send Authorization: Bearer <token>")
			}
			for t, user := range users {
				if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 && owners[runID] == user {
					return nil
				}
			}
			return fmt.Errorf("token does not grant run %s", runID) // 403, logged only
		},
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /runs/{run}/events", events)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	if _, err := rt.Run(ctx, "desk", runtime.RunInput{Messages: []model.Message{model.UserMessage("Hi")}}, runtime.WithRunID("run-1")); err != nil {
		panic(err)
	}

	for _, token := range []string{"", "tok-mallory", "tok-alice"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/runs/run-1/events", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		fmt.Println(resp.Status)
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			if name, ok := strings.CutPrefix(lines.Text(), "event: "); ok && resp.StatusCode == http.StatusOK {
				fmt.Println(" ", name)
			}
		}
		resp.Body.Close()
	}
	// Output:
	// 401 Unauthorized
	// 403 Forbidden
	// 200 OK
	//   run_started
	//   text_delta
	//   stream_usage
	//   planned
	//   usage
	//   run_completed
}
