package bedrock

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/quiver-go/quiver/model"
)

// TestNewLoadsTheDefaultChain: without WithAWSConfig the region and the
// keys come from the environment (config.LoadDefaultConfig), and the
// request is signed with them.
func TestNewLoadsTheDefaultChain(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_REGION", "eu-west-3")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	f := newFake(t, ok(reply("hi")))
	c, err := New(WithBaseURL(f.srv.URL), WithModel(novaID), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}}); err != nil {
		t.Fatal(err)
	}
	auth := f.Requests()[0].Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDENV/") || !strings.Contains(auth, "/eu-west-3/bedrock/") {
		t.Fatalf("Authorization = %q, want the environment's key and region", auth)
	}
}

// TestNewRefusesBadOptions: every problem is reported with its fix.
func TestNewRefusesBadOptions(t *testing.T) {
	if _, err := New(WithAWSConfig(aws.Config{})); err == nil || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Errorf("no region: err = %v", err)
	}
	_, err := New(WithAWSConfig(awsConfig()), WithBaseURL("bedrock.local"), WithMaxRetries(-1), WithClassModel(model.ModelClassSmall, ""), WithTemperature(-1))
	for _, want := range []string{"absolute http(s) URL", "max retries", "empty model id", "temperature"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want one naming %q", err, want)
		}
	}
}

// TestClassModel: a request's class picks the WithClassModel id.
func TestClassModel(t *testing.T) {
	f := newFake(t, ok(reply("hi")))
	c := f.client(WithClassModel(model.ModelClassSmall, "amazon.nova-micro-v1:0"))
	if _, err := c.Complete(ctx(t), &model.Request{Class: model.ModelClassSmall, Messages: []model.Message{model.UserMessage("hi")}}); err != nil {
		t.Fatal(err)
	}
	if p := f.Requests()[0].Path; p != "/model/amazon.nova-micro-v1:0/converse" {
		t.Fatalf("path = %s", p)
	}
}
