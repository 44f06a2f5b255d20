package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/syncbuf"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/tools/contract"
)

// TestServeListenersRefuseEveryRegistryRouteWithoutAKey runs the quiver
// binary's serve, without and with --keys, finds every TCP port the
// process listens on (not only the ones the banner names), and sends every
// route of the registry's OpenAPI document to each of them with no key, a
// wrong key and the real admin key under the Basic scheme: every answer is
// a 4xx, and the registry's own port answers 401 to each. Then, with the
// admin key, it shows that nothing ran, registered or was deleted, and
// that no key was printed.
func TestServeListenersRefuseEveryRegistryRouteWithoutAKey(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the listening sockets from /proc")
	}
	bin := quiverBinary(t)
	const clientKey = "attack-test-client-key-0123456789abcdef"
	keys := filepath.Join(t.TempDir(), "clients.json")
	if err := os.WriteFile(keys, []byte(`{"clients":[{"name":"owner","key":"`+clientKey+`","tier":"full"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("anonymous", func(t *testing.T) { attackServe(t, bin, "", "") })
	t.Run("keys", func(t *testing.T) { attackServe(t, bin, keys, clientKey) })
}

// attackServe is one run of the attack on quiver serve, with --keys
// keysFile when set (mcpKey being one of its full-tier keys).
func attackServe(t *testing.T, bin, keysFile, mcpKey string) {
	data := t.TempDir()
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data", data}
	if keysFile != "" {
		args = append(args, "--keys", keysFile)
	}
	p := startQuiverProcess(t, bin, args...)
	banner := p.stdout.String()
	mcpEndpoint := mcpURL(t, banner)
	regURL := bannerRegistryURL(t, banner)

	// The key files: readable by the user only.
	adminKey := readKeyFile(t, filepath.Join(data, adminKeyFile))
	providerKey := readKeyFile(t, filepath.Join(data, providerKeyFile))

	// Every listening socket of the process, found from /proc.
	ports := listeningSockets(t, p.cmd.Process.Pid)
	if len(ports) < 2 {
		t.Fatalf("the process listens on %v: want at least the MCP endpoint and the registry", ports)
	}
	regAddr := strings.TrimPrefix(regURL, "http://")
	mcpAddr := strings.TrimSuffix(strings.TrimPrefix(mcpEndpoint, "http://"), "/mcp")
	for _, want := range []string{regAddr, mcpAddr} {
		if !slices.Contains(ports, want) {
			t.Fatalf("the process listens on %v, not on %s that its banner names", ports, want)
		}
	}
	t.Logf("listening: %v (registry %s, mcp %s)", ports, regAddr, mcpAddr)

	// The state before the attack, read legitimately.
	before := adminToolsets(t, regURL, adminKey)
	if len(before) != 1 || before[0].Name != "workspace" || before[0].Providers < 1 {
		t.Fatalf("before the attack the registry lists %+v: want the workspace toolset with its provider", before)
	}
	var resolved struct {
		Toolset struct {
			Token       string          `json:"token"`
			Declaration json.RawMessage `json:"declaration"`
		} `json:"toolset"`
	}
	adminGet(t, regURL+"/v1/toolsets/workspace/resolve", adminKey, http.StatusOK, &resolved)
	token := resolved.Toolset.Token
	if token == "" {
		t.Fatal("the resolution carries no token")
	}
	registration := attackRegistration(t, resolved.Toolset.Declaration)

	routes := openAPIRoutes(t)
	client := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	attempts := []struct{ name, header string }{
		{"no key", ""},
		{"wrong key", "Bearer wrong-key-0123456789abcdef"},
		{"admin key as Basic", "Basic " + adminKey},
	}
	var callIDs []string
	sent := 0
	for _, port := range ports {
		for _, rt := range routes {
			for _, at := range attempts {
				var body []byte
				switch {
				case rt.method == http.MethodPost && rt.path == "/v1/calls":
					id := fmt.Sprintf("attack-%d", len(callIDs)+1)
					callIDs = append(callIDs, id)
					body = attackJSON(t, map[string]any{
						"toolset": "workspace", "tool": "deleteSavedView", "payload": map[string]string{"view": "sv-1"},
						"token": token, "call_id": id,
					})
				case rt.method == http.MethodPost && rt.path == "/v1/registrations":
					body = registration
				case rt.method == http.MethodPost && strings.HasSuffix(rt.path, "/result"):
					body = []byte(`{"lease_id":"x","result":{}}`)
				}
				path := strings.NewReplacer("{name}", "workspace", "{lease_id}", "lease_x", "{call_id}", "attack-1").Replace(rt.path)
				target := "http://" + port + path
				var rd io.Reader
				if body != nil {
					rd = bytes.NewReader(body)
				}
				req, err := http.NewRequest(rt.method, target, rd)
				if err != nil {
					t.Fatal(err)
				}
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				if at.header != "" {
					req.Header.Set("Authorization", at.header)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("%s %s (%s): %v", rt.method, target, at.name, err)
					continue
				}
				answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
				resp.Body.Close()
				sent++
				switch {
				case resp.StatusCode < 400 || resp.StatusCode > 499:
					t.Errorf("%s %s (%s): %d %s, want a 4xx refusal", rt.method, target, at.name, resp.StatusCode, answer)
				case port == regAddr && strings.HasPrefix(rt.path, "/v1/") && resp.StatusCode != http.StatusUnauthorized:
					t.Errorf("%s %s (%s) on the registry: %d %s, want 401", rt.method, target, at.name, resp.StatusCode, answer)
				}
				for _, secret := range []string{adminKey, providerKey, token} {
					if strings.Contains(string(answer), secret) || strings.Contains(fmt.Sprint(resp.Header), secret) {
						t.Errorf("%s %s (%s): the answer repeats a secret: %s", rt.method, target, at.name, answer)
					}
				}
			}
		}
	}
	t.Logf("%d requests on %d ports, %d routes", sent, len(ports), len(routes))
	if len(callIDs) == 0 {
		t.Fatal("the OpenAPI document has no POST /v1/calls: no call was attempted")
	}

	// Nothing ran: no attack call has a record.
	for _, id := range append(callIDs, "attack-1") {
		if status, body := adminStatus(t, regURL+"/v1/calls/"+id, adminKey); status != http.StatusNotFound {
			t.Errorf("GET /v1/calls/%s: %d %s, want 404: the attack's call was recorded", id, status, body)
		}
	}
	// Nothing registered or was unregistered: the same one registration.
	after := adminToolsets(t, regURL, adminKey)
	if len(after) != 1 || after[0].Name != "workspace" || after[0].Revision != before[0].Revision ||
		after[0].Fingerprint != before[0].Fingerprint || after[0].Providers != before[0].Providers {
		t.Errorf("after the attack the registry lists %+v, before %+v: want the same workspace registration", after, before)
	}
	// Nothing was deleted: sv-1 is still saved, as an MCP client sees.
	session := connectMCP(t, httpTransport(mcpEndpoint, mcpKey))
	names := session.names(t)
	if !slices.Contains(names, "listSavedViews") {
		if text, isErr := session.call(t, "search_tools", map[string]string{"query": "list saved views"}); isErr || !strings.Contains(text, `"name":"listSavedViews"`) {
			t.Fatalf("search for listSavedViews = %s (error %v)", text, isErr)
		}
		select {
		case <-session.changes:
		case <-time.After(5 * time.Second):
			t.Fatal("no notifications/tools/list_changed after the search")
		}
	}
	if text, isErr := session.call(t, "listSavedViews", map[string]any{}); isErr || !strings.Contains(text, `"view":"sv-1"`) {
		t.Errorf("listSavedViews = %s (error %v): want sv-1 still saved", text, isErr)
	}

	// No key is printed, even at the stop.
	_ = session.Close()
	stopping := time.Now()
	code := p.stop(t)
	t.Logf("stopped in %s", time.Since(stopping).Round(time.Millisecond))
	if code != 0 {
		t.Errorf("quiver serve exited %d after SIGTERM; stderr:\n%s", code, p.stderr.String())
	}
	out, errOut := p.stdout.String(), p.stderr.String()
	for name, secret := range map[string]string{"admin": adminKey, "provider": providerKey, "client": mcpKey} {
		if secret == "" {
			continue
		}
		if strings.Contains(out, secret) || strings.Contains(errOut, secret) {
			t.Errorf("the %s key is printed:\nstdout:\n%s\nstderr:\n%s", name, out, errOut)
		}
	}
}

// quiverProcess is a quiver binary running as a subprocess.
type quiverProcess struct {
	cmd            *exec.Cmd
	stdout, stderr syncbuf.Buffer
	exited         chan struct{}
	code           int
	stopped        bool
}

// startQuiverProcess runs bin with args until the test ends and waits for its
// banner's last line, in a user's environment with a data folder of its
// own (userEnv).
func startQuiverProcess(t *testing.T, bin string, args ...string) *quiverProcess {
	t.Helper()
	return startQuiverProcessEnv(t, bin, userEnv(t.TempDir()), args...)
}

// userEnv is this process's environment as a new user's shell has it:
// no QUIVER_* variable, and $XDG_DATA_HOME at xdg.
func userEnv(xdg string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "QUIVER_") && !strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "XDG_DATA_HOME="+xdg)
}

// startQuiverProcessEnv is startQuiverProcess with the environment env.
func startQuiverProcessEnv(t *testing.T, bin string, env []string, args ...string) *quiverProcess {
	t.Helper()
	p := &quiverProcess{cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		announced := false
		for sc.Scan() {
			fmt.Fprintln(&p.stdout, sc.Text())
			if !announced && strings.HasPrefix(sc.Text(), "Serving until") {
				announced = true
				close(ready)
			}
		}
	}()
	go func() {
		<-read // Wait only once the pipe is read to its end.
		err := p.cmd.Wait()
		p.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
		} else if err != nil {
			p.code = -1
		}
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t) })
	select {
	case <-ready:
	case <-p.exited:
		t.Fatalf("%v exited %d before serving:\nstdout:\n%s\nstderr:\n%s", args, p.code, p.stdout.String(), p.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("%v printed no banner in 30s:\nstdout:\n%s\nstderr:\n%s", args, p.stdout.String(), p.stderr.String())
	}
	return p
}

// stop sends SIGTERM, waits for the exit (SIGKILL after 15s) and returns
// the exit status.
func (p *quiverProcess) stop(t *testing.T) int {
	t.Helper()
	if p.stopped {
		return p.code
	}
	p.stopped = true
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("the process did not stop within 15s of SIGTERM")
	}
	return p.code
}

// bannerRegistryURL is the registry URL a quiver serve banner prints.
func bannerRegistryURL(t *testing.T, banner string) string {
	t.Helper()
	for line := range strings.Lines(banner) {
		if rest, ok := strings.CutPrefix(line, "registry  "); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	t.Fatalf("no registry line in the banner:\n%s", banner)
	return ""
}

// readKeyFile reads a key file, checking that it is readable by the user
// only.
func readKeyFile(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(b))
	if len(key) < 16 {
		t.Fatalf("%s holds %q: not a key", path, key)
	}
	return key
}

// listeningSockets returns the address (host:port, dialable) of every TCP
// socket in LISTEN state among the open files of process pid.
func listeningSockets(t *testing.T, pid int) []string {
	t.Helper()
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
		if err != nil {
			continue // closed since
		}
		if rest, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes[strings.TrimSuffix(rest, "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			if table == "tcp6" && os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for _, line := range lines[1:] {
			f := strings.Fields(line)
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
				continue
			}
			out = append(out, procAddr(t, f[1]))
		}
	}
	slices.Sort(out)
	return out
}

// procAddr decodes a /proc/net/tcp{,6} address (hex IP in host byte order
// per 32-bit word, hex port) into a dialable host:port, an unspecified IP
// becoming the loopback address of its family.
func procAddr(t *testing.T, s string) string {
	t.Helper()
	ipHex, portHex, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(ipHex)
	if !ok || err != nil || (len(raw) != 4 && len(raw) != 16) {
		t.Fatalf("address %q in /proc/net/tcp: not hex IP:port", s)
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		t.Fatalf("address %q in /proc/net/tcp: %v", s, err)
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(ip[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	if ip.IsUnspecified() {
		if len(ip) == 4 {
			ip = net.IPv4(127, 0, 0, 1)
		} else {
			ip = net.IPv6loopback
		}
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(int(port)))
}

// attackRoute is one operation of the OpenAPI document.
type attackRoute struct{ method, path string }

// openAPIRoutes lists the operations of the registry's OpenAPI document.
func openAPIRoutes(t *testing.T) []attackRoute {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(server.OpenAPI(), &doc); err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	var out []attackRoute
	for path, ops := range doc.Paths {
		for method := range ops {
			switch m := strings.ToUpper(method); m {
			case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead:
				out = append(out, attackRoute{m, path})
			}
		}
	}
	slices.SortFunc(out, func(a, b attackRoute) int { return strings.Compare(a.path+" "+a.method, b.path+" "+b.method) })
	if len(out) < 10 {
		t.Fatalf("the OpenAPI document lists %d operations: %v", len(out), out)
	}
	return out
}

// attackRegistration is a registration an attacker would send: the
// workspace toolset under a new revision, its declaration changed (and
// fingerprinted as changed).
func attackRegistration(t *testing.T, declaration json.RawMessage) []byte {
	t.Helper()
	var decl contract.ToolsetDeclaration
	if err := json.Unmarshal(declaration, &decl); err != nil {
		t.Fatalf("the resolved declaration: %v", err)
	}
	decl.Description = "Hijacked."
	fp, err := contract.Fingerprint(decl)
	if err != nil {
		t.Fatal(err)
	}
	return attackJSON(t, map[string]any{
		"kind": "tool_schemas", "toolset": decl, "fingerprint": fp, "revision": "attacker-1",
		"execution": "service", "provider": "attacker", "max_in_flight": 1,
	})
}

// attackToolset is an entry of GET /v1/toolsets.
type attackToolset struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	Revision    string `json:"revision"`
	Providers   int    `json:"providers"`
}

// adminToolsets lists the registry's toolsets with the admin key.
func adminToolsets(t *testing.T, regURL, adminKey string) []attackToolset {
	t.Helper()
	var res struct {
		Toolsets []attackToolset `json:"toolsets"`
	}
	adminGet(t, regURL+"/v1/toolsets", adminKey, http.StatusOK, &res)
	return res.Toolsets
}

// adminGet sends GET url with the admin key, wants status, and decodes a
// 200's body into v.
func adminGet(t *testing.T, url, adminKey string, status int, v any) {
	t.Helper()
	got, body := adminStatus(t, url, adminKey)
	if got != status {
		t.Fatalf("GET %s: %d %s, want %d", url, got, body, status)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v\n%s", url, err, body)
		}
	}
}

// adminStatus sends GET url with the admin key and returns the answer.
func adminStatus(t *testing.T, url, adminKey string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminKey)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// attackJSON marshals v.
func attackJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
