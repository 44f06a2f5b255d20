package anthropic_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
)

// bedrockStreamPath is the InvokeModelWithResponseStream path of
// profileModel, decoded.
const bedrockStreamPath = "/model/" + profileModel + "/invoke-with-response-stream"

// bedrockStream is a Bedrock response stream answer: the events as AWS
// event-stream frames.
func bedrockStream(events []providerfake.Event, cut bool) providerfake.Answer {
	return providerfake.Answer{
		Events: providerfake.AnthropicBedrockEvents(events),
		Header: map[string]string{"Content-Type": providerfake.BedrockStreamContentType, "X-Amzn-RequestId": "bedrock-req-1"},
		Cut:    cut,
	}
}

// bedrockStreamClient is an adapter on Bedrock talking to p.
func bedrockStreamClient(t *testing.T, p *providerfake.Server) *anthropic.Client {
	t.Helper()
	// The SDK prefers a Bedrock API key from the environment over SigV4.
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	c, err := anthropic.New(anthropic.WithBedrock(staticAWS()), anthropic.WithBaseURL(p.URL()), anthropic.WithModel(profileModel), anthropic.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBedrockStreamsThroughInvokeWithResponseStream(t *testing.T) {
	p := providerfake.New(t, bedrockStreamPath, bedrockStream(providerfake.AnthropicStreamEvents(hostedRound), false))
	s, err := bedrockStreamClient(t, p).Stream(context.Background(), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatal(err)
	}
	var chunks []model.Chunk
	resp, err := model.Collect(s, func(c model.Chunk) error {
		chunks = append(chunks, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Request(0)
	if auth := r.Header.Get("Authorization"); !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential="+awsKeyID+"/") {
		t.Fatalf("Authorization = %q, want SigV4", auth)
	}
	body := members(t, r.Body)
	if _, ok := body["stream"]; ok {
		t.Fatal(`the body carries "stream": Bedrock takes it from the path`)
	}
	if string(body["anthropic_version"]) != `"`+anthropic.BedrockAnthropicVersion+`"` {
		t.Fatalf("anthropic_version = %s", body["anthropic_version"])
	}
	search := ofKind(chunks, model.ChunkSearch)
	if len(search) != 1 || !reflect.DeepEqual(*search[0].Search, model.SearchRound{Query: "export records csv", Found: []string{"records_export"}}) {
		t.Fatalf("searches %+v", search)
	}
	if len(ofKind(chunks, model.ChunkText)) < 2 || len(ofKind(chunks, model.ChunkToolCallDelta)) < 2 {
		t.Fatalf("chunks %v: text and input did not stream in pieces", kinds(chunks))
	}
	sameAsComplete(t, resp, direct, ok(hostedRound))
}

func TestBedrockStreamCutIsInterrupted(t *testing.T) {
	events := providerfake.AnthropicStreamEvents(hostedRound)
	p := providerfake.New(t, bedrockStreamPath, bedrockStream(events[:len(events)-2], true))
	s, err := bedrockStreamClient(t, p).Stream(context.Background(), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	_, err = model.Collect(s, func(c model.Chunk) error {
		if c.Kind == model.ChunkToolCall {
			calls++
		}
		return nil
	})
	if !errors.Is(err, model.ErrStreamInterrupted) {
		t.Fatalf("err = %v, want ErrStreamInterrupted", err)
	}
	if calls != 1 {
		// The cut falls after the call's block stopped, before message_delta.
		t.Fatalf("%d calls streamed before the cut, want the finished one", calls)
	}
}
