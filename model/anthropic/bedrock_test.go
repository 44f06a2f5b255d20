package anthropic_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
)

// The static AWS identity of the Bedrock tests.
const (
	awsRegion = "us-east-1"
	awsKeyID  = "AKIDQUIVERTEST"
	awsSecret = "quiver-test-secret"
)

// profileModel is a cross-region inference profile id of Claude on
// Bedrock.
const profileModel = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// bedrockTSTBeta is the beta Bedrock gates the hosted tool search behind
// (Anthropic docs, "Tool search tool": Amazon Bedrock,
// tool-search-tool-2025-10-19).
const bedrockTSTBeta = "tool-search-tool-2025-10-19"

// bedrockAnswer is one scripted answer of the fake Bedrock runtime.
type bedrockAnswer struct {
	status int
	body   string
	header map[string]string
}

// bedrockOK is a 200 InvokeModel answer: the Messages API's response body,
// as Bedrock returns it for Claude.
func bedrockOK(body string) bedrockAnswer {
	return bedrockAnswer{status: http.StatusOK, body: body}
}

// bedrockRequest is one request the fake Bedrock runtime received.
type bedrockRequest struct {
	Method string
	// Path is the decoded path, RawPath the path as sent (escaped).
	Path, RawPath string
	Header        http.Header
	Body          []byte
	// SignatureErr is why the SigV4 signature does not verify, nil when
	// it does.
	SignatureErr error
}

// bedrockRuntime is a local Amazon Bedrock runtime speaking InvokeModel:
// POST /model/{modelId}/invoke with a JSON body, answered with scripted
// JSON. It records every request and verifies its SigV4 signature with the
// tests' static credentials.
type bedrockRuntime struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	answers []bedrockAnswer
	reqs    []bedrockRequest
}

// newBedrock starts a fake Bedrock runtime playing answers.
func newBedrock(t *testing.T, answers ...bedrockAnswer) *bedrockRuntime {
	t.Helper()
	// The SDK prefers a Bedrock API key from the environment over SigV4.
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	b := &bedrockRuntime{t: t, answers: answers}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *bedrockRuntime) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		b.t.Errorf("reading a request body: %v", err)
	}
	rec := bedrockRequest{Method: r.Method, Path: r.URL.Path, RawPath: r.URL.EscapedPath(), Header: r.Header.Clone(), Body: body, SignatureErr: verifySigV4(r, body)}
	b.mu.Lock()
	b.reqs = append(b.reqs, rec)
	n := len(b.reqs)
	var a bedrockAnswer
	scripted := len(b.answers) > 0
	if scripted {
		a, b.answers = b.answers[0], b.answers[1:]
	}
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-RequestId", "bedrock-req-1")
	if !scripted || r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/model/") || !strings.HasSuffix(r.URL.Path, "/invoke") {
		b.t.Errorf("request %d: unscripted or not an InvokeModel: %s %s", n, r.Method, r.URL.EscapedPath())
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"message":"not found"}`)
		return
	}
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

// request returns request i (0-based).
func (b *bedrockRuntime) request(i int) bedrockRequest {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if i >= len(b.reqs) {
		b.t.Fatalf("Bedrock received %d requests, want at least %d", len(b.reqs), i+1)
	}
	return b.reqs[i]
}

// count is how many requests arrived.
func (b *bedrockRuntime) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.reqs)
}

// staticAWS is an aws.Config with the tests' region and static
// credentials: nothing is loaded from the environment.
func staticAWS() aws.Config {
	return aws.Config{Region: awsRegion, Credentials: credentials.NewStaticCredentialsProvider(awsKeyID, awsSecret, "")}
}

// client returns an adapter talking to the fake Bedrock runtime.
func (b *bedrockRuntime) client(opts ...anthropic.Option) *anthropic.Client {
	b.t.Helper()
	base := []anthropic.Option{
		anthropic.WithBedrock(staticAWS()),
		anthropic.WithBaseURL(b.srv.URL),
		anthropic.WithModel(profileModel),
		anthropic.WithMaxRetries(0),
	}
	c, err := anthropic.New(append(base, opts...)...)
	if err != nil {
		b.t.Fatal(err)
	}
	return c
}

// verifySigV4 re-signs the request the server received with the tests'
// credentials, at its X-Amz-Date, over the headers it lists as signed, and
// compares the signatures: nil when Authorization is the SigV4 signature
// of exactly what arrived.
func verifySigV4(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") {
		return errors.New("Authorization is not AWS4-HMAC-SHA256")
	}
	_, signedList, ok := strings.Cut(auth, "SignedHeaders=")
	if !ok {
		return errors.New("Authorization lists no SignedHeaders")
	}
	signedList, _, _ = strings.Cut(signedList, ",")
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return errors.New("X-Amz-Date is missing or malformed")
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	re, err := http.NewRequest(r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	for _, name := range strings.Split(signedList, ";") {
		switch name {
		case "host", "content-length":
		default:
			re.Header[http.CanonicalHeaderKey(name)] = r.Header.Values(name)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: awsKeyID, SecretAccessKey: awsSecret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, re, hex.EncodeToString(sum[:]), "bedrock", awsRegion, at); err != nil {
		return err
	}
	if got := re.Header.Get("Authorization"); got != auth {
		return errors.New("signature mismatch: sent " + auth + ", expected " + got)
	}
	return nil
}

// members decodes a request body's top-level members, kept as sent.
func members(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, body)
	}
	return m
}

// assertBedrockBody fails unless the Bedrock body is the direct body with
// exactly Bedrock's differences: no "model" (it is in the path), and
// "anthropic_version" and "anthropic_beta" added; every other member is
// byte for byte the direct one.
func assertBedrockBody(t *testing.T, what string, direct, bedrock []byte, betas string) {
	t.Helper()
	d, b := members(t, direct), members(t, bedrock)
	if got := string(d["model"]); got != `"`+profileModel+`"` {
		t.Fatalf("%s: direct model = %s", what, got)
	}
	if m, ok := b["model"]; ok {
		t.Fatalf("%s: Bedrock body carries model %s: it belongs in the path", what, m)
	}
	if got := string(b["anthropic_version"]); got != `"bedrock-2023-05-31"` {
		t.Fatalf("%s: anthropic_version = %s, want \"bedrock-2023-05-31\"", what, got)
	}
	if got := string(b["anthropic_beta"]); got != betas {
		t.Fatalf("%s: anthropic_beta = %s, want %s", what, got, betas)
	}
	for _, k := range []string{"anthropic_version", "anthropic_beta"} {
		if _, ok := d[k]; ok {
			t.Fatalf("%s: the direct body carries %s", what, k)
		}
	}
	delete(d, "model")
	delete(b, "anthropic_version")
	delete(b, "anthropic_beta")
	keys := func(m map[string]json.RawMessage) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	if !slices.Equal(keys(d), keys(b)) {
		t.Fatalf("%s: members differ: direct %v, Bedrock %v", what, keys(d), keys(b))
	}
	for k, v := range d {
		if !bytes.Equal(v, b[k]) {
			t.Fatalf("%s: member %q differs:\ndirect:  %s\nBedrock: %s", what, k, v, b[k])
		}
	}
}

// assertBedrockWire fails unless the request is an InvokeModel of model,
// signed with SigV4 by the tests' credentials, without the headers Bedrock
// takes in the body.
func assertBedrockWire(t *testing.T, r bedrockRequest, rawPath string) {
	t.Helper()
	if r.Method != http.MethodPost || r.RawPath != rawPath {
		t.Fatalf("request %s %s, want POST %s", r.Method, r.RawPath, rawPath)
	}
	auth := r.Header.Get("Authorization")
	if want := "AWS4-HMAC-SHA256 Credential=" + awsKeyID + "/"; !strings.HasPrefix(auth, want) || !strings.Contains(auth, "/"+awsRegion+"/bedrock/aws4_request") {
		t.Fatalf("Authorization = %q, want SigV4 for bedrock in %s", auth, awsRegion)
	}
	if r.Header.Get("X-Amz-Date") == "" {
		t.Fatal("X-Amz-Date missing")
	}
	if r.SignatureErr != nil {
		t.Fatalf("SigV4 signature: %v", r.SignatureErr)
	}
	for _, h := range []string{"anthropic-beta", "anthropic-version", "X-Api-Key"} {
		if v := r.Header.Values(h); len(v) > 0 {
			t.Fatalf("header %s = %q sent to Bedrock", h, v)
		}
	}
}

// searchThenAnswer runs the two turns of a hosted tool search on c: the
// search that loads records_export and its call, then, after the tool's
// result, the answer.
func searchThenAnswer(t *testing.T, c *anthropic.Client) []*model.Response {
	t.Helper()
	req := request("Export the orders table as CSV.")
	req.Cache = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}
	first, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "records_export" {
		t.Fatalf("turn 1 tool calls = %+v", first.ToolCalls)
	}
	req.Messages = append(req.Messages, first.Messages...)
	req.Messages = append(req.Messages, model.Message{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "toolu_01", Name: "records_export", Content: json.RawMessage(`{"export":"exp_7","state":"started"}`)}}}})
	second, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if second.StopReason != model.StopEndTurn || second.Messages[0].TextContent() != "The export exp_7 has started." {
		t.Fatalf("turn 2 = %q %+v", second.StopReason, second.Messages)
	}
	return []*model.Response{first, second}
}

// answered is the final answer of the two-turn tests.
var answered = message("msg_02", "end_turn", 12, `{"type":"text","text":"The export exp_7 has started."}`)

func TestBedrockHostedSearchSendsTheDirectBodyToInvokeModel(t *testing.T) {
	direct := newProvider(t, ok(hostedRound), ok(answered))
	searchThenAnswer(t, direct.client(anthropic.WithModel(profileModel), anthropic.WithBetas(bedrockTSTBeta)))

	br := newBedrock(t, bedrockOK(hostedRound), bedrockOK(answered))
	resps := searchThenAnswer(t, br.client(anthropic.WithBetas(bedrockTSTBeta)))

	if br.count() != 2 {
		t.Fatalf("Bedrock received %d requests, want 2", br.count())
	}
	for i := range 2 {
		r := br.request(i)
		assertBedrockWire(t, r, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke")
		if got := direct.Request(i).Header.Get("anthropic-beta"); got != bedrockTSTBeta {
			t.Fatalf("direct anthropic-beta = %q", got)
		}
		assertBedrockBody(t, "turn "+strconv.Itoa(i+1), direct.Request(i).Body, r.Body, `["`+bedrockTSTBeta+`"]`)
	}

	// The first turn in full: tools deferred behind the hosted BM25
	// search, cache checkpoints on the system prompt and the last tool.
	providerfake.AssertJSON(t, "turn 1 on Bedrock", br.request(0).Body, `{
	  "anthropic_version":"bedrock-2023-05-31","anthropic_beta":["tool-search-tool-2025-10-19"],
	  "max_tokens":1024,
	  "system":[{"type":"text","text":"You manage records.","cache_control":{"type":"ephemeral"}}],
	  "messages":[{"role":"user","content":[{"type":"text","text":"Export the orders table as CSV."}]}],
	  "tools":`+toolsOf(`{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25","cache_control":{"type":"ephemeral"}}`)+`}`)
	// The second replays the search blocks in place, then the result.
	providerfake.AssertJSON(t, "turn 2 messages on Bedrock", field(t, br.request(1).Body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Export the orders table as CSV."}]},
	  {"role":"assistant","content":[{"type":"text","text":"Let me find an export tool."},`+searchUse+`,`+searchHit+`,
	    {"type":"tool_use","id":"toolu_01","name":"records_export","input":{"table":"orders","format":"csv"}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"{\"export\":\"exp_7\",\"state\":\"started\"}"}]}]}]`)

	d, ok := resps[0].Messages[0].Discovery()
	if !ok || len(d.Tools) != 1 || d.Tools[0] != "records.export" {
		t.Fatalf("discovery = %+v (%v)", d, ok)
	}
}

func TestBedrockInputExamplesAndNoBetas(t *testing.T) {
	direct := newProvider(t, endTurn)
	br := newBedrock(t, bedrockOK(message("msg_q", "end_turn", 5, `{"type":"text","text":"ok"}`)))
	req := request("hi")
	req.Tools = req.Tools[:1]
	req.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"example":{"id":"rec_42"}}`)
	req.Tools[0].Examples = []json.RawMessage{json.RawMessage(`{"id":"rec_42"}`)}
	if _, err := direct.client(anthropic.WithModel(profileModel)).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := br.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	d, b := members(t, direct.Request(0).Body), members(t, br.request(0).Body)
	if _, ok := b["anthropic_beta"]; ok {
		t.Fatalf("anthropic_beta %s sent without WithBetas", b["anthropic_beta"])
	}
	if !bytes.Equal(d["tools"], b["tools"]) || !bytes.Contains(b["tools"], []byte(`"input_examples":[{"id":"rec_42"}]`)) {
		t.Fatalf("tools differ or lack input_examples:\ndirect:  %s\nBedrock: %s", d["tools"], b["tools"])
	}
}

func TestBedrockModelIDsReachThePathEscaped(t *testing.T) {
	for _, tc := range []struct{ id, rawPath string }{
		{"anthropic.claude-sonnet-4-5-20250929-v1:0", "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"},
		{profileModel, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"},
		{"global.anthropic.claude-opus-4-5-20251101-v1:0", "/model/global.anthropic.claude-opus-4-5-20251101-v1:0/invoke"},
		{"arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "/model/arn:aws:bedrock:us-east-1:123456789012:inference-profile%2Fus.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			br := newBedrock(t, bedrockOK(message("msg_q", "end_turn", 5, `{"type":"text","text":"ok"}`)))
			req := request("hi")
			req.Model = tc.id
			if _, err := br.client().Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			r := br.request(0)
			assertBedrockWire(t, r, tc.rawPath)
			if r.Path != "/model/"+tc.id+"/invoke" {
				t.Fatalf("decoded path = %q", r.Path)
			}
			if _, ok := members(t, r.Body)["model"]; ok {
				t.Fatal("model sent in the body")
			}
		})
	}
}

// Bedrock API reference, InvokeModel, Errors: the exception is named in
// X-Amzn-ErrorType, the body is {"message": …}.
func bedrockError(status int, exception, message string) bedrockAnswer {
	raw, _ := json.Marshal(map[string]string{"message": message})
	return bedrockAnswer{status: status, body: string(raw), header: map[string]string{"X-Amzn-ErrorType": exception + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}}
}

func TestBedrockThrottlingIsTemporary(t *testing.T) {
	for _, tc := range []struct {
		status    int
		exception string
		message   string
		temporary bool
	}{
		{http.StatusTooManyRequests, "ThrottlingException", "Too many requests, please wait before trying again.", true},
		{http.StatusServiceUnavailable, "ServiceUnavailableException", "Bedrock is unable to process your request.", true},
		{http.StatusTooManyRequests, "ModelNotReadyException", "Model is not ready to serve inference requests.", true},
		{http.StatusBadRequest, "ValidationException", "messages: field required", false},
	} {
		t.Run(tc.exception, func(t *testing.T) {
			br := newBedrock(t, bedrockError(tc.status, tc.exception, tc.message))
			_, err := br.client().Complete(context.Background(), request("hi"))
			var ae *anthropic.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an *APIError", err)
			}
			if ae.StatusCode != tc.status || ae.Type != tc.exception || ae.Message != tc.message || ae.RequestID != "bedrock-req-1" || ae.Temporary() != tc.temporary {
				t.Fatalf("api error = %+v, temporary %v", ae, ae.Temporary())
			}
			if want := "anthropic: provider error " + strconv.Itoa(tc.status) + " " + tc.exception + ": " + tc.message + " (request-id bedrock-req-1)"; err.Error() != want {
				t.Fatalf("message = %q, want %q", err, want)
			}
			if br.count() != 1 {
				t.Fatalf("%d requests with retries off", br.count())
			}
		})
	}
}

func TestBedrockThrottlingIsRetriedAndReSigned(t *testing.T) {
	throttled := bedrockError(http.StatusTooManyRequests, "ThrottlingException", "Too many requests, please wait before trying again.")
	throttled.header["Retry-After-Ms"] = "1"
	br := newBedrock(t, throttled, bedrockOK(message("msg_q", "end_turn", 5, `{"type":"text","text":"ok"}`)))
	if _, err := br.client(anthropic.WithMaxRetries(1)).Complete(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	if br.count() != 2 {
		t.Fatalf("%d requests, want the throttled one and its retry", br.count())
	}
	first, retry := br.request(0), br.request(1)
	assertBedrockWire(t, retry, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke")
	if !bytes.Equal(first.Body, retry.Body) {
		t.Fatalf("the retry sent another body:\n%s\n%s", first.Body, retry.Body)
	}
}

func TestBedrockDefaultConfigComesFromTheEnvironment(t *testing.T) {
	br := newBedrock(t, bedrockOK(message("msg_q", "end_turn", 5, `{"type":"text","text":"ok"}`)))
	t.Setenv("AWS_REGION", awsRegion)
	t.Setenv("AWS_ACCESS_KEY_ID", awsKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", awsSecret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	// The endpoint override of the default chain replaces the regional
	// endpoint, as in the AWS SDK's own clients.
	t.Setenv("AWS_ENDPOINT_URL", br.srv.URL)
	none := func(o *config.LoadOptions) error {
		o.SharedConfigFiles, o.SharedCredentialsFiles = []string{}, []string{}
		return nil
	}
	c, err := anthropic.New(anthropic.WithBedrockDefaultConfig(context.Background(), none), anthropic.WithModel(profileModel), anthropic.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	assertBedrockWire(t, br.request(0), "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke")
}

func TestBedrockRejectsIncompleteConfig(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	creds := credentials.NewStaticCredentialsProvider(awsKeyID, awsSecret, "")
	failing := func(o *config.LoadOptions) error { return errors.New("no profile") }
	for _, tc := range []struct {
		name string
		opts []anthropic.Option
		want string
	}{
		{"no region", []anthropic.Option{anthropic.WithBedrock(aws.Config{Credentials: creds})}, "needs an AWS region"},
		{"no credentials", []anthropic.Option{anthropic.WithBedrock(aws.Config{Region: awsRegion})}, "needs AWS credentials"},
		{"api key", []anthropic.Option{anthropic.WithAPIKey("k"), anthropic.WithBedrock(staticAWS())}, "drop WithAPIKey"},
		{"load failure", []anthropic.Option{anthropic.WithBedrockDefaultConfig(context.Background(), failing)}, "load the AWS configuration for Bedrock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := anthropic.New(tc.opts...); err == nil || !strings.HasPrefix(err.Error(), "anthropic: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// Middleware given with WithSDKOptions runs before the SDK's Bedrock
// middleware: it sees the request the direct API would receive, and what
// it changes is signed.
func TestBedrockSDKMiddlewareSeesTheDirectRequest(t *testing.T) {
	br := newBedrock(t, bedrockOK(message("msg_q", "end_turn", 5, `{"type":"text","text":"ok"}`)))
	var seenPath, seenModel string
	mw := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		seenPath = r.URL.Path
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct{ Model string }
		_ = json.Unmarshal(body, &m)
		seenModel = m.Model
		r.Header.Set("X-Quiver-Trace", "t1")
		return next(r)
	})
	if _, err := br.client(anthropic.WithSDKOptions(mw)).Complete(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	if seenPath != "/v1/messages" || seenModel != profileModel {
		t.Fatalf("middleware saw %s with model %q, want /v1/messages with %q", seenPath, seenModel, profileModel)
	}
	r := br.request(0)
	assertBedrockWire(t, r, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke")
	if r.Header.Get("X-Quiver-Trace") != "t1" || !strings.Contains(r.Header.Get("Authorization"), "x-quiver-trace") {
		t.Fatalf("the middleware's header was not sent signed: %q", r.Header.Get("Authorization"))
	}
}

func TestBedrockClientSideSearch(t *testing.T) {
	answers := func() (string, string) {
		return message("msg_11", "tool_use", 30, `{"type":"text","text":"Searching."}`, searchCall("toolu_s1", "export records csv")), message("msg_12", "tool_use", 40, exportUse)
	}
	a1, a2 := answers()
	direct := newProvider(t, ok(a1), ok(a2))
	br := newBedrock(t, bedrockOK(a1), bedrockOK(a2))
	opts := []anthropic.Option{anthropic.WithSearch(anthropic.SearchClient), anthropic.WithDiscovery(discovery.Settings{Limit: 1})}
	if _, err := direct.client(append(opts, anthropic.WithModel(profileModel), anthropic.WithBetas(bedrockTSTBeta))...).Complete(context.Background(), request("Export the orders table as CSV.")); err != nil {
		t.Fatal(err)
	}
	resp, err := br.client(append(opts, anthropic.WithBetas(bedrockTSTBeta))...).Complete(context.Background(), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "records_export" || br.count() != 2 {
		t.Fatalf("tool calls = %+v after %d requests", resp.ToolCalls, br.count())
	}
	for i := range 2 {
		assertBedrockWire(t, br.request(i), "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke")
		assertBedrockBody(t, "round "+strconv.Itoa(i+1), direct.Request(i).Body, br.request(i).Body, `["`+bedrockTSTBeta+`"]`)
	}
	providerfake.AssertJSON(t, "the search answered with a tool_reference", field(t, br.request(1).Body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Export the orders table as CSV."}]},
	  {"role":"assistant","content":[{"type":"text","text":"Searching."},`+searchCall("toolu_s1", "export records csv")+`]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s1","content":[{"type":"tool_reference","tool_name":"records_export"}]}]}]`)
}
