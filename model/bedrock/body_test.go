package bedrock

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
)

// recordingClient keeps the request it is given.
type recordingClient struct{ req *http.Request }

func (r *recordingClient) Do(req *http.Request) (*http.Response, error) {
	r.req = req
	return nil, errors.New("not sent")
}

// TestRequestBodiesReachNetHTTPWithoutWriteTo checks the guard against
// smithy-go's early close (see guardBodies): the body net/http reads has
// no WriteTo and reads as sent.
func TestRequestBodiesReachNetHTTPWithoutWriteTo(t *testing.T) {
	rec := &recordingClient{}
	req, err := http.NewRequest(http.MethodPost, "http://localhost/model/x/converse-stream", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := req.Body.(io.WriterTo); !ok {
		t.Fatal("the test's body should offer WriteTo, as smithy-go's does")
	}
	_, _ = guardBodies(rec).Do(req)
	if _, ok := rec.req.Body.(io.WriterTo); ok {
		t.Fatal("the body still offers WriteTo")
	}
	if b, err := io.ReadAll(rec.req.Body); err != nil || string(b) != `{"messages":[]}` {
		t.Fatalf("body reads %q, %v", b, err)
	}
}

// TestTheFakeStreamsItsWholeAnswers checks the test fake's converse-stream
// answers, which the runtime tests read once planning streams: a whole
// Converse answer streams into the response Complete reads.
func TestTheFakeStreamsItsWholeAnswers(t *testing.T) {
	answer := toolUse("tu_1", "startExport", `{"table":"orders"}`)
	f := newFake(t, ok(answer), ok(answer))
	c := f.client()
	want, err := c.Complete(ctx(t), streamRequest())
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Stream(ctx(t), streamRequest())
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.Collect(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != want.Text() || len(got.ToolCalls) != 1 || string(got.ToolCalls[0].Payload) != string(want.ToolCalls[0].Payload) || got.Usage != want.Usage {
		t.Fatalf("streamed %+v, completed %+v", got, want)
	}
}
