package openai

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/openai/openai-go/v3/bedrock"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

// Bedrock as the SDK's bedrock package reaches it: the Mantle endpoint's
// API root is https://bedrock-mantle.<region>.api.aws/openai/v1, so the
// Responses API is POST /openai/v1/responses, signed with SigV4 for the
// service bedrock-mantle (bedrock/auth.go, openai-go v3.99.0). A local
// server is not a canonical AWS host, so the SDK keeps the Mantle signer
// and accepts plain HTTP.
const (
	bedrockRoot    = "/openai/v1"
	bedrockRegion  = "us-west-2"
	bedrockService = "bedrock-mantle"
	bedrockKeyID   = "AKIDEXAMPLE"
	bedrockSecret  = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	bedrockModel   = "openai.gpt-oss-120b"
)

// bedrockOptions are the options of a client bound to p as Bedrock, with
// static AWS credentials and a region.
func bedrockOptions(p *providerfake.Server, retries int) []Option {
	return []Option{
		WithBedrock(bedrock.Config{
			AWSRegion:              bedrockRegion,
			AWSCredentialsProvider: credentials.NewStaticCredentialsProvider(bedrockKeyID, bedrockSecret, ""),
		}),
		WithBaseURL(p.URL() + bedrockRoot),
		WithHTTPClient(p.Client()),
		WithMaxRetries(retries),
		WithModel(bedrockModel),
	}
}

// newBedrock starts a local Bedrock Responses endpoint playing exchanges
// and returns it with a SigV4 client bound to it. When the test ends it
// checks that every exchange took place, that each request carried a
// valid SigV4 signature of its body and no OpenAI key, and that each body
// is the golden one of the direct API (the model id aside).
func newBedrock(t *testing.T, retries int, exchanges ...exchange) (*providerfake.Server, *Client) {
	t.Helper()
	answers := make([]providerfake.Answer, len(exchanges))
	for i, ex := range exchanges {
		answers[i] = providerfake.Answer{Status: ex.status, Body: ex.body, Header: ex.header}
	}
	p := providerfake.New(t, bedrockRoot+"/responses", answers...)
	c, err := New(bedrockOptions(p, retries)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		reqs := p.Requests()
		if len(reqs) != len(exchanges) {
			t.Errorf("Bedrock received %d requests, want %d", len(reqs), len(exchanges))
		}
		for i, r := range reqs {
			checkSigV4(t, i, p, r)
			if i < len(exchanges) && exchanges[i].golden != "" {
				checkGolden(t, exchanges[i].golden, wholeBody(t, directBody(t, r.Body), exchanges[i].streamed))
			}
		}
	})
	return p, c
}

// directBody is a Bedrock request body with the direct tests' model id,
// to compare it with their golden files: the body is the same on both.
func directBody(t *testing.T, body []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body is not a JSON object: %v", err)
	}
	if got := string(m["model"]); got != `"`+bedrockModel+`"` {
		t.Errorf("model = %s, want %q", got, bedrockModel)
	}
	m["model"] = json.RawMessage(`"gpt-5.4"`)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkSigV4 checks that request i is signed with SigV4 — Authorization:
// AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/bedrock-mantle/
// aws4_request, SignedHeaders=…, Signature=… — with X-Amz-Content-Sha256
// the hash of the body received, and that the signature is the one the AWS
// signer computes from the signed headers received: the request reached
// the server as signed.
func checkSigV4(t *testing.T, i int, p *providerfake.Server, r providerfake.Request) {
	t.Helper()
	auth := r.Header.Get("Authorization")
	amzDate := r.Header.Get("X-Amz-Date")
	at, err := time.Parse("20060102T150405Z", amzDate)
	if err != nil {
		t.Errorf("request %d: X-Amz-Date %q: %v", i+1, amzDate, err)
		return
	}
	prefix := "AWS4-HMAC-SHA256 Credential=" + bedrockKeyID + "/" + at.Format("20060102") + "/" + bedrockRegion + "/" + bedrockService + "/aws4_request, SignedHeaders="
	if !strings.HasPrefix(auth, prefix) {
		t.Errorf("request %d: Authorization %q, want the prefix %q", i+1, auth, prefix)
		return
	}
	sum := sha256.Sum256(r.Body)
	hash := hex.EncodeToString(sum[:])
	if got := r.Header.Get("X-Amz-Content-Sha256"); got != hash {
		t.Errorf("request %d: X-Amz-Content-Sha256 %q, want the body's hash %q", i+1, got, hash)
	}
	signed, _, _ := strings.Cut(strings.TrimPrefix(auth, prefix), ",")
	host := strings.TrimPrefix(p.URL(), "http://")
	again, err := http.NewRequest(r.Method, "http://"+host+r.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range strings.Split(signed, ";") {
		if h != "host" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	creds := aws.Credentials{AccessKeyID: bedrockKeyID, SecretAccessKey: bedrockSecret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hash, bedrockService, bedrockRegion, at); err != nil {
		t.Fatal(err)
	}
	if want := again.Header.Get("Authorization"); auth != want {
		t.Errorf("request %d: signature does not verify\n got: %s\nwant: %s", i+1, auth, want)
	}
}

func TestBedrockSearchOverTwoTurns(t *testing.T) {
	// Turn 1: the model searches, the adapter answers with a namespaced
	// function, the model calls it (Bedrock echoing the namespace).
	// Turn 2: the stored turn replays with the tool result, and the model
	// answers. Every body is the direct API's golden one.
	p, c := newBedrock(t, 0,
		exchange{golden: "search_then_call_1", body: response("resp_1", "completed", 40,
			reasoningItem("rs_1"), providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
		exchange{golden: "search_then_call_2", body: response("resp_2", "completed", 30,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`))},
		exchange{golden: "replay_same", body: response("resp_3", "completed", 8, providerfake.OpenAIMessage("msg_1", "Export e1 started."))},
	)
	req := baseRequest()
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "tool calls", resp.ToolCalls, []model.ToolCall{{ID: "call_1", Name: "start_export", Payload: json.RawMessage(`{"format":"csv"}`)}})
	outs := searchOutputs(p.Body(1))
	if len(outs) != 1 || len(outs[0]) != 1 {
		t.Fatalf("search outputs = %v", outs)
	}
	ns := outs[0][0].(map[string]any)
	fn := ns["tools"].([]any)[0].(map[string]any)
	if ns["type"] != "namespace" || ns["name"] != "start_export" || fn["name"] != "start_export" || fn["defer_loading"] != true {
		t.Errorf("search answer = %v, want the function in a namespace of its name", ns)
	}

	next := baseRequest()
	next.Messages = roundTrip(t, req.Messages, append(resp.Messages, toolResult("call_1", "start_export", `{"export_id":"e1"}`))...)
	resp, err = c.Complete(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "text", resp.Text(), "Export e1 started.")
	var call map[string]any
	for _, it := range p.Body(2)["input"].([]any) {
		if m := it.(map[string]any); m["type"] == "function_call" {
			call = m
		}
	}
	equal(t, "replayed call namespace", call["namespace"], "start_export")
}

// Items of a stored turn, as a record holds them.
const (
	searchCallItem = `{"type":"tool_search_call","id":"tsc_1","call_id":"call_search_1","execution":"client","status":"completed","arguments":{"query":"export csv"}}`
	exportFunction = `{"type":"function","name":"start_export","description":"Start exporting records to a CSV file.","strict":false,"defer_loading":true,"parameters":{"type":"object","properties":{"format":{"type":"string","enum":["csv"]}},"required":["format"]}}`
	// namespacedOutput loads start_export in its namespace, as the adapter
	// answers.
	namespacedOutput = `{"type":"tool_search_output","call_id":"call_search_1","execution":"client","status":"completed","tools":[{"type":"namespace","name":"start_export","description":"Start export","tools":[` + exportFunction + `]}]}`
	// bareOutput loads start_export outside any namespace container, as a
	// client that places dynamic functions at the top of the output does.
	bareOutput = `{"type":"tool_search_output","call_id":"call_search_1","execution":"client","status":"completed","tools":[` + exportFunction + `]}`
)

// exportCall is the function_call item of start_export, in namespace ns
// ("" for none).
func exportCall(ns string) string {
	return providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", ns, `{"format":"csv"}`)
}

// storedTurn is a conversation whose assistant message (index 1) holds
// items as its record, followed by the tool results of call_1 and, when
// lookup is set, call_2.
func storedTurn(lookup bool, items ...string) []model.Message {
	rec, _ := json.Marshal(map[string]any{"items": json.RawMessage("[" + strings.Join(items, ",") + "]")})
	msgs := []model.Message{
		model.UserMessage("Export my records as CSV."),
		{Role: model.RoleAssistant, Parts: []model.Part{}, Meta: map[string]json.RawMessage{MetaKey: rec}},
		toolResult("call_1", "start_export", `{"export_id":"e1"}`),
	}
	if lookup {
		msgs = append(msgs, toolResult("call_2", "lookup", `{"status":"open"}`))
	}
	return msgs
}

func TestBedrockRefusesCallsWithoutTheirNamespace(t *testing.T) {
	plainCall := model.Message{Role: model.RoleAssistant, Parts: []model.Part{
		{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "call_7", Name: "start_export", Payload: json.RawMessage(`{"format":"csv"}`)}},
	}}
	for _, tc := range []struct {
		name    string
		history []model.Message
		// message is the index of the offending message; detail a part of
		// the error saying what is missing.
		message int
		detail  string
	}{
		{"function outside the namespace container", storedTurn(false, searchCallItem, bareOutput, exportCall("")), 1,
			"placed the function outside a namespace container"},
		{"call without the namespace its output loaded it in", storedTurn(false, searchCallItem, namespacedOutput, exportCall("")), 1,
			"without the namespace its tool_search_output loaded it in"},
		{"call in another namespace", storedTurn(false, searchCallItem, namespacedOutput, exportCall("exports")), 1,
			`in namespace "exports"`},
		{"message rebuilt from parts", append(storedTurn(false, searchCallItem, namespacedOutput, exportCall("start_export")),
			plainCall, toolResult("call_7", "start_export", `{"export_id":"e2"}`)), 3,
			"without the namespace its tool_search_output loaded it in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := newBedrock(t, 0) // nothing may be sent
			req := baseRequest()
			req.Messages = tc.history
			_, err := c.Complete(context.Background(), req)
			if !errors.Is(err, ErrCallWithoutNamespace) {
				t.Fatalf("error = %v, want ErrCallWithoutNamespace", err)
			}
			msg := err.Error()
			for _, want := range []string{
				tc.detail,
				fmt.Sprintf("message %d calls %q", tc.message, "start_export"),
				"start a new conversation",
				fmt.Sprintf("remove the whole exchange (message %d ", tc.message),
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
		})
	}
}

func TestBedrockReplaysCallsWithTheirIdentity(t *testing.T) {
	// A namespaced call of a searched tool, and a call of an eager tool
	// (no search loaded it, so it has no namespace to carry), replay.
	p, c := newBedrock(t, 0, exchange{body: response("resp_3", "completed", 8, providerfake.OpenAIMessage("msg_1", "OK."))})
	req := baseRequest()
	req.Messages = storedTurn(true, searchCallItem, namespacedOutput, exportCall("start_export"),
		providerfake.OpenAIFunctionCall("fc_2", "call_2", "lookup", "", `{"id":"r1"}`))
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if outs := searchOutputs(p.Body(0)); len(outs) != 1 || len(outs[0]) != 1 {
		t.Errorf("replayed search outputs = %v", outs)
	}
}

func TestDirectOpenAIReplaysCallsWithoutNamespace(t *testing.T) {
	// The Bedrock rule is Bedrock's: direct OpenAI replays such a history
	// as before (the bare function entry dropped, the call unchanged).
	p, c := newProvider(t, exchange{body: response("resp_3", "completed", 8, providerfake.OpenAIMessage("msg_1", "OK."))})
	req := baseRequest()
	req.Messages = storedTurn(false, searchCallItem, bareOutput, exportCall(""))
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, it := range p.Body(0)["input"].([]any) {
		m := it.(map[string]any)
		if ty, _ := m["type"].(string); ty != "" {
			types = append(types, ty)
		}
		if _, ok := m["namespace"]; ok {
			t.Errorf("a namespace was added: %v", m)
		}
	}
	equal(t, "input items", types, []string{"tool_search_call", "tool_search_output", "function_call", "function_call_output"})
}

// throttled is Bedrock's answer to a request over the quota: HTTP 429 with
// the AWS error shape (the message at the top level, the type in
// x-amzn-ErrorType), and a retry delay short enough for a test.
var throttled = exchange{status: http.StatusTooManyRequests,
	header: map[string]string{"x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/", "Retry-After-Ms": "1"},
	body:   `{"message":"Too many tokens, please wait before trying again."}`}

// unavailable is Bedrock's transient server error.
var unavailable = exchange{status: http.StatusServiceUnavailable,
	header: map[string]string{"x-amzn-ErrorType": "ServiceUnavailableException:http://internal.amazon.com/coral/com.amazon.bedrock/", "Retry-After-Ms": "1"},
	body:   `{"message":"Bedrock is unable to process your request."}`}

func TestBedrockRetriesThrottlingAndServerErrors(t *testing.T) {
	// The SDK retries 429 and 5xx (WithMaxRetries), signing each attempt
	// anew (newBedrock verifies every signature).
	ok := exchange{golden: "plain", body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Record r1 is open."))}
	p, c := newBedrock(t, 2, exchange{status: throttled.status, header: throttled.header, body: throttled.body, golden: "plain"},
		exchange{status: unavailable.status, header: unavailable.header, body: unavailable.body, golden: "plain"}, ok)
	req := baseRequest()
	req.Tools = catalog()[:1]
	req.MaxTokens = 0
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "text", resp.Text(), "Record r1 is open.")
	for i, r := range p.Requests() {
		equal(t, "retry count", r.Header.Get("X-Stainless-Retry-Count"), strconv.Itoa(i))
	}
}

func TestBedrockErrorsAfterRetries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		answer    exchange
		retries   int
		requests  int
		typ, msg  string
		temporary bool
	}{
		{"throttled", throttled, 1, 2, "ThrottlingException", "Too many tokens, please wait before trying again.", true},
		{"unavailable", unavailable, 1, 2, "ServiceUnavailableException", "Bedrock is unable to process your request.", true},
		{"server error, OpenAI shape", exchange{status: http.StatusInternalServerError, header: map[string]string{"Retry-After-Ms": "1"},
			body: `{"error":{"message":"internal error","type":"server_error"}}`}, 1, 2, "server_error", "internal error", true},
		{"invalid request, not retried", exchange{status: http.StatusBadRequest,
			header: map[string]string{"x-amzn-ErrorType": "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"},
			body:   `{"Message":"The model does not support tool_search."}`}, 2, 1, "ValidationException", "The model does not support tool_search.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := make([]exchange, tc.requests)
			for i := range ex {
				ex[i] = tc.answer
			}
			_, c := newBedrock(t, tc.retries, ex...)
			req := baseRequest()
			req.Tools = catalog()[:1]
			_, err := c.Complete(context.Background(), req)
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error = %v, want *APIError", err)
			}
			equal(t, "status", ae.StatusCode, tc.answer.status)
			equal(t, "type", ae.Type, tc.typ)
			equal(t, "message", ae.Message, tc.msg)
			equal(t, "temporary", ae.Temporary(), tc.temporary)
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not carry the provider's message", err)
			}
		})
	}
}

func TestBedrockBearerKey(t *testing.T) {
	// A Bedrock API key is sent as a bearer token instead of a signature.
	p := providerfake.New(t, bedrockRoot+"/responses", providerfake.OK(response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Hi."))))
	c, err := New(WithBedrock(bedrock.Config{AWSRegion: bedrockRegion, APIKey: "bedrock-api-key"}),
		WithBaseURL(p.URL()+bedrockRoot), WithHTTPClient(p.Client()), WithMaxRetries(0), WithModel(bedrockModel))
	if err != nil {
		t.Fatal(err)
	}
	req := baseRequest()
	req.Tools = catalog()[:1]
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := p.Request(0)
	equal(t, "Authorization", r.Header.Get("Authorization"), "Bearer bedrock-api-key")
	equal(t, "X-Amz-Date", r.Header.Get("X-Amz-Date"), "")
}

func TestBedrockOptionErrors(t *testing.T) {
	creds := credentials.NewStaticCredentialsProvider(bedrockKeyID, bedrockSecret, "")
	for _, tc := range []struct {
		name string
		opts []Option
		want []string
	}{
		{"OpenAI key", []Option{WithBedrock(bedrock.Config{AWSRegion: bedrockRegion, AWSCredentialsProvider: creds}), WithAPIKey("sk-test")},
			[]string{"WithAPIKey", "Bedrock does not accept", "bedrock.Config.APIKey"}},
		{"two endpoints", []Option{WithBedrock(bedrock.Config{AWSRegion: bedrockRegion, AWSCredentialsProvider: creds, BaseURL: "http://127.0.0.1:1/openai/v1"}),
			WithBaseURL("http://127.0.0.1:2/openai/v1")}, []string{"different Bedrock endpoints", "set only one"}},
		{"no region", []Option{WithBedrock(bedrock.Config{AWSCredentialsProvider: creds})},
			[]string{"WithBedrock", "region is required", "AWSRegion"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// No region or configuration from the machine's environment.
			dir := t.TempDir()
			for k, v := range map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "", "AWS_BEDROCK_BASE_URL": "",
				"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"), "AWS_EC2_METADATA_DISABLED": "true"} {
				t.Setenv(k, v)
			}
			_, err := New(tc.opts...)
			if err == nil {
				t.Fatal("New succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
