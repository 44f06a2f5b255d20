package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// bedrockModel is a Claude model id on Bedrock, as -model takes it.
const bedrockModel = "anthropic.claude-sonnet-4-5-20250929-v1:0"

// isolateAWS gives the AWS default chain only what the test sets: no
// shared files, no instance metadata, no profile.
func isolateAWS(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, v := range []string{"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"} {
		t.Setenv(v, "")
	}
}

// withAWSCredentials sets a region and static credentials for the chain.
func withAWSCredentials(t *testing.T) {
	t.Helper()
	isolateAWS(t)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDQUIVERTOOLSEARCH")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
}

// bedrockCase: Claude through Bedrock's InvokeModel, the same
// conversation as the direct Anthropic case (the same adapter), streamed
// from the model's invoke-with-response-stream path and signed with SigV4.
func bedrockCase() providerCase {
	c := anthropicCase()
	c.provider, c.model = providerBedrock, bedrockModel
	c.path = "/model/" + bedrockModel + "/invoke-with-response-stream"
	return c
}

// -provider bedrock runs the quickstart's two turns against a local
// Bedrock: search, call and answer, every request signed.
func TestBedrockConversation(t *testing.T) {
	withAWSCredentials(t)
	tc := bedrockCase()
	answers := make([]providerfake.Answer, tc.turn1)
	for i, b := range tc.answers[:tc.turn1] {
		answers[i] = providerfake.OK(b)
	}
	// Bedrock signs each request (checked below); no API key is sent.
	p := providerfake.New(t, tc.path, answers...)
	var stdout, stderr bytes.Buffer
	args := []string{"-provider", tc.provider, "-model", tc.model, "-base-url", p.URL()}
	if code := run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	for _, want := range []string{"model:  bedrock " + bedrockModel, "discovered weather.get_weather", "calls get_weather", answer1} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout.String())
		}
	}
	reqs := p.Requests()
	if len(reqs) != tc.turn1 {
		t.Fatalf("%d requests, want %d", len(reqs), tc.turn1)
	}
	for i, r := range reqs {
		if auth := r.Header.Get("Authorization"); !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDQUIVERTOOLSEARCH/") || !strings.Contains(auth, "/us-east-1/bedrock/aws4_request") {
			t.Errorf("request %d: Authorization %q, want a SigV4 signature for bedrock in us-east-1", i+1, auth)
		}
		if _, ok := r.Header["X-Api-Key"]; ok {
			t.Errorf("request %d carries an Anthropic API key", i+1)
		}
		if body := p.Body(i); body["model"] != nil || body["anthropic_version"] == nil {
			t.Errorf("request %d: model %v, anthropic_version %v: want the model in the path and the Bedrock version in the body", i+1, body["model"], body["anthropic_version"])
		}
	}
}

// Without a region, or without credentials, every Bedrock provider stops
// with exit code 2 before anything is sent.
func TestBedrockWithoutRegionOrCredentialsExitsTwo(t *testing.T) {
	p := providerfake.New(t, "/model/"+bedrockModel+"/invoke")
	for _, tc := range []struct {
		name, want string
		set        func(t *testing.T)
	}{
		{"no region", "needs an AWS region: set AWS_REGION", func(t *testing.T) {
			isolateAWS(t)
			t.Setenv("AWS_ACCESS_KEY_ID", "AKIDQUIVERTOOLSEARCH")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
		}},
		{"no credentials", "needs AWS credentials", func(t *testing.T) {
			isolateAWS(t)
			t.Setenv("AWS_REGION", "us-east-1")
		}},
	} {
		for _, provider := range []string{providerBedrock, providerBedrockOpenAI, providerBedrockConverse} {
			t.Run(tc.name+"/"+provider, func(t *testing.T) {
				tc.set(t)
				var stdout, stderr bytes.Buffer
				args := []string{"-provider", provider, "-model", exampleModel(provider), "-base-url", p.URL()}
				if code := run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
					t.Fatalf("exit %d, stderr %q: want 2 and %q", code, stderr.String(), tc.want)
				}
			})
		}
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// The other Bedrock providers build their adapters from the same chain:
// Responses on Bedrock searching natively, Converse on portable search.
func TestBedrockProvidersBuild(t *testing.T) {
	withAWSCredentials(t)
	for _, tc := range []struct{ provider, how string }{
		{providerBedrockOpenAI, "native"},
		{providerBedrockConverse, "portable"},
	} {
		m, err := newModel(providerConfig{provider: tc.provider, model: exampleModel(tc.provider)}, func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s: %v", tc.provider, err)
		}
		if !strings.HasPrefix(m.how, tc.how) || !strings.HasPrefix(m.name, tc.provider+" ") {
			t.Errorf("%s: %q / %q", tc.provider, m.name, m.how)
		}
	}
}
