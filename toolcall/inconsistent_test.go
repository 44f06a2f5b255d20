package toolcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/runtime"
)

// alteredFingerprint is the fingerprint the proxy writes into every
// resolve answer.
const alteredFingerprint = "sha256:" + "00000000000000000000000000000000000000000000000000000000000000aa"

// fingerprintAltering serves a real registry through a proxy that replaces
// every toolset's fingerprint in resolve answers: an answer no registry
// gives (it refuses a registration whose fingerprint is not its
// declaration's), which a consumer must refuse.
func fingerprintAltering(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(res *http.Response) error {
		if !strings.HasSuffix(res.Request.URL.Path, "/resolve") || res.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil {
			return err
		}
		var answer map[string]any
		if err := json.Unmarshal(body, &answer); err != nil {
			return err
		}
		toolsets, _ := answer["toolsets"].([]any)
		for _, ts := range toolsets {
			if m, ok := ts.(map[string]any); ok {
				m["fingerprint"] = alteredFingerprint
			}
		}
		if body, err = json.Marshal(answer); err != nil {
			return err
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
		res.ContentLength = int64(len(body))
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRegistryAnswerWithAnAlteredFingerprintIsRefusedAlike reads a
// registry tool whose listed fingerprint does not match its schemas: the
// runtime's planning step and the MCP server refuse it with the same
// error, and nothing runs on either path.
func TestRegistryAnswerWithAnAlteredFingerprintIsRefusedAlike(t *testing.T) {
	exec := &counting{reply: greeting}
	reg := registrytest.Start(t, registrytest.Options{})
	registrytest.Serve(t, reg.Client(t, ""), registry.Registration{Toolset: parityDeclaration(), Revision: "r1"}, exec)
	registrytest.WaitProviders(t, reg.Client(t, ""), "parity", 1)
	altered := fingerprintAltering(t, reg.URL)
	client := func() *registry.Client {
		c, err := registry.NewClient(altered)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	// The runtime: the step's read fails, the run with it.
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, scripted.New(scripted.Call("greet", `{"name":"Ada"}`), scripted.Reply("done"))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	if err := rt.RegisterRegistry("corp", client()); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "reader", Planner: planner.NewStandard(), Registries: []runtime.RegistryUse{{Registry: "corp", Toolset: "parity"}}}); err != nil {
		t.Fatal(err)
	}
	_, runErr := rt.Run(context.Background(), "reader", runtime.RunInput{Messages: []model.Message{model.UserMessage("Greet Ada.")}})
	if runErr == nil {
		t.Fatal("the run read the altered answer and went on")
	}

	// The MCP server: its first read fails; the tool is not served.
	s, err := mcp.New(mcp.Config{Source: mcp.Registry(client()), ExposeAll: true, Anonymous: "full", Undeclared: "full"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	readyErr := s.Ready(context.Background())
	var viaMCP *registry.InconsistentError
	if !errors.As(readyErr, &viaMCP) {
		t.Fatalf("the MCP server's read failed with %v: want a registry.InconsistentError", readyErr)
	}
	if answer, isError, err := mcpCall(t, s, "greet", `{"name":"Ada"}`); err == nil && !isError {
		t.Errorf("over MCP the altered tool answered %s", answer)
	}

	// The same refusal: the toolset, what it hashes to and what was
	// listed. The runtime's error crossed the engine's activity boundary as
	// text (as it would on a durable engine), so its text is compared.
	if viaMCP.Toolset != "parity" || viaMCP.Listed != alteredFingerprint || viaMCP.Computed == alteredFingerprint {
		t.Errorf("the MCP server refused %+v", viaMCP)
	}
	same := *viaMCP
	same.Registry = "corp"
	if !strings.Contains(runErr.Error(), same.Error()) {
		t.Errorf("the runtime refused with\n%v\nthe MCP server with\n%v", runErr, viaMCP)
	}
	if n := exec.runs.Load(); n != 0 {
		t.Errorf("the executor ran %d times", n)
	}
}
