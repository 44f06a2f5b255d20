package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/quiver-go/quiver/internal/boundedinput"
	"github.com/quiver-go/quiver/internal/jsonpos"
	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/tools"
)

// MaxConfigBytes bounds an mcpServers file.
const MaxConfigBytes = 1 << 20

// DefaultMaxConcurrentCalls is how many calls one upstream runs at once
// unless its "maxConcurrentCalls" says otherwise; more wait their turn.
const DefaultMaxConcurrentCalls = 16

// Config is a parsed mcpServers file: the upstream servers to front.
type Config struct {
	// Servers are the servers to start, sorted by name.
	Servers []Server
	// Disabled names the servers the file marks "disabled": true.
	Disabled []string
	// Warnings are what the file says that the gateway does not read
	// (keys other clients use), one line each, for the operator.
	Warnings []string

	secrets *secrets
}

// Server is one upstream server of a [Config].
type Server struct {
	// Name is the server's key in the file: the name of its toolset.
	Name string
	// Upstream says how to reach it (the variables expanded).
	Upstream upstream.Config
	// Exposure is the tier its tools need ("exposure"), "" when the file
	// gives none: those tools are then served as undeclared.
	Exposure tools.Exposure
	// ToolExposure are per-tool tiers ("tools": {"name": {"exposure":
	// …}}), by the server's tool name; they override Exposure.
	ToolExposure map[string]tools.Exposure
	// MaxConcurrentCalls is how many of its calls run at once
	// ("maxConcurrentCalls", default [DefaultMaxConcurrentCalls]).
	MaxConcurrentCalls int
}

// Scrub returns text with every secret of the configuration — whatever a
// ${VAR} expanded to, every "env" and "headers" value, a URL's user
// information and query — replaced by the word redacted in square
// brackets. The gateway scrubs everything it logs and reports; use Scrub
// on anything else that may quote a server's configuration.
func (c *Config) Scrub(text string) string {
	if c == nil || c.secrets == nil {
		return text
	}
	return c.secrets.scrub(text)
}

// fileServer is one entry of "mcpServers" as MCP clients write it, with
// the keys the gateway adds (exposure, tools, maxConcurrentCalls).
type fileServer struct {
	Command            string              `json:"command"`
	Args               []string            `json:"args"`
	Env                map[string]string   `json:"env"`
	Cwd                string              `json:"cwd"`
	URL                string              `json:"url"`
	Headers            map[string]string   `json:"headers"`
	Type               string              `json:"type"`
	Disabled           bool                `json:"disabled"`
	Exposure           tools.Exposure      `json:"exposure"`
	Tools              map[string]fileTool `json:"tools"`
	MaxConcurrentCalls int                 `json:"maxConcurrentCalls"`
}

// fileTool is a per-tool entry of a server's "tools".
type fileTool struct {
	Exposure tools.Exposure `json:"exposure"`
}

// serverKeys are the keys of a server entry the gateway reads.
var serverKeys = []string{"command", "args", "env", "cwd", "url", "headers", "type", "disabled", "exposure", "tools", "maxConcurrentCalls"}

// exampleConfig is what error messages show of the file's shape.
const exampleConfig = `{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"], "exposure": "read_only"}, "docs": {"url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}`

// LoadConfig reads the mcpServers file at path, its ${VAR} references
// expanded from this process's environment ([ParseConfig]).
func LoadConfig(path string) (*Config, error) {
	r, err := boundedinput.Open(path, MaxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("gateway: %s: %w", path, err)
	}
	cfg, err := ParseConfig(data, os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig reads an mcpServers file — {"mcpServers": {"<name>":
// {"command": …, "args": […], "env": {…}, "cwd": …} or {"url": …,
// "headers": {…}}}}, as Claude Desktop, IDEs and other MCP clients write
// it — with ${VAR} and ${VAR:-default} expanded through lookup in command,
// args, env, cwd, url and headers. Each server may add "exposure" (the
// tier its tools need: read_only, staging, full or excluded), "tools":
// {"<tool>": {"exposure": …}} per tool, and "maxConcurrentCalls"; a server
// with "disabled": true is left out. Keys other clients use are ignored
// and reported in Warnings.
//
// An error says where the file is wrong and never quotes a secret.
func ParseConfig(data []byte, lookup func(string) (string, bool)) (*Config, error) {
	var file struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&file); err != nil {
		var e *jsonpos.Error
		if errors.As(jsonpos.Locate(data, dec, err), &e) {
			return nil, fmt.Errorf("gateway: line %d, column %d: %s (want %s)", e.Line, e.Column, e.Problem(), exampleConfig)
		}
		return nil, fmt.Errorf("gateway: %w (want %s)", err, exampleConfig)
	}
	if dec.More() {
		return nil, fmt.Errorf("gateway: the file holds more than one JSON value (want %s)", exampleConfig)
	}
	if file.Servers == nil {
		return nil, fmt.Errorf(`gateway: the file has no "mcpServers" object (want %s)`, exampleConfig)
	}
	cfg := &Config{secrets: &secrets{}}
	names := make([]string, 0, len(file.Servers))
	for name := range file.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		srv, disabled, warnings, err := parseServer(name, file.Servers[name], lookup, cfg.secrets)
		cfg.Warnings = append(cfg.Warnings, warnings...)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("server %q: %w", name, err))
		case disabled:
			cfg.Disabled = append(cfg.Disabled, name)
		default:
			cfg.Servers = append(cfg.Servers, srv)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	if len(cfg.Servers) == 0 {
		return nil, fmt.Errorf(`gateway: "mcpServers" lists no server to start (want %s)`, exampleConfig)
	}
	return cfg, nil
}

// parseServer reads one server entry.
func parseServer(name string, raw json.RawMessage, lookup func(string) (string, bool), sec *secrets) (srv Server, disabled bool, warnings []string, err error) {
	if _, err := tools.NewIdent(name, "tool"); err != nil {
		return Server{}, false, nil, fmt.Errorf("the name is no toolset name (its tools are called %s.<tool>): %w", name, err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return Server{}, false, nil, fmt.Errorf("want an object such as %s", `{"command": "…", "args": […]}`)
	}
	for k := range keys {
		if !slices.Contains(serverKeys, k) {
			warnings = append(warnings, fmt.Sprintf("server %q: key %q is not one quiver serve reads (ignored)", name, clip(k)))
		}
	}
	slices.Sort(warnings)
	var fs fileServer
	if err := json.Unmarshal(raw, &fs); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Server{}, false, warnings, fmt.Errorf("%q must be %s", te.Field, jsonKind(te.Type.Kind().String()))
		}
		return Server{}, false, warnings, err
	}
	if fs.Disabled {
		return Server{}, true, warnings, nil
	}
	srv = Server{Name: name, Exposure: fs.Exposure, MaxConcurrentCalls: fs.MaxConcurrentCalls}
	var errs []error
	if err := checkExposure(fs.Exposure); err != nil {
		errs = append(errs, fmt.Errorf(`"exposure": %w`, err))
	}
	if len(fs.Tools) > 0 {
		srv.ToolExposure = make(map[string]tools.Exposure, len(fs.Tools))
		for tool, t := range fs.Tools {
			if err := checkExposure(t.Exposure); err != nil {
				errs = append(errs, fmt.Errorf(`"tools": %q: "exposure": %w`, clip(tool), err))
			}
			if t.Exposure != "" {
				srv.ToolExposure[tool] = t.Exposure
			}
		}
	}
	switch {
	case fs.MaxConcurrentCalls < 0:
		errs = append(errs, errors.New(`"maxConcurrentCalls" is negative: give how many calls may run at once`))
	case fs.MaxConcurrentCalls == 0:
		srv.MaxConcurrentCalls = DefaultMaxConcurrentCalls
	}
	up, err := upstreamConfig(fs, lookup, sec)
	if err != nil {
		errs = append(errs, err)
	}
	srv.Upstream = up
	return srv, false, warnings, errors.Join(errs...)
}

// checkExposure accepts "" and the four tiers.
func checkExposure(e tools.Exposure) error {
	if e.Valid() {
		return nil
	}
	return fmt.Errorf("%q is not read_only, staging, full or excluded", clip(string(e)))
}

// upstreamConfig is the connection of fs, its variables expanded and its
// secrets recorded.
func upstreamConfig(fs fileServer, lookup func(string) (string, bool), sec *secrets) (upstream.Config, error) {
	var errs []error
	get := func(field, s string) string {
		v, err := expand(s, lookup, sec.add)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		}
		return v
	}
	var cfg upstream.Config
	kind := strings.ToLower(fs.Type)
	switch {
	case kind == "sse":
		return cfg, errors.New(`"type": "sse" (the protocol's old HTTP+SSE transport) is not supported: point "url" at the server's streamable HTTP endpoint and drop "type"`)
	case kind != "" && kind != "stdio" && kind != "http" && kind != "streamable-http" && kind != "streamablehttp":
		return cfg, fmt.Errorf(`"type" %q is not stdio, http or streamable-http`, clip(fs.Type))
	case fs.Command == "" && fs.URL == "":
		return cfg, errors.New(`it has neither "command" (a server started over stdio) nor "url" (a streamable HTTP endpoint): give one`)
	case fs.Command != "" && fs.URL != "":
		return cfg, errors.New(`it has both "command" and "url": give one`)
	case fs.Command != "" && (kind == "http" || kind == "streamable-http" || kind == "streamablehttp"):
		return cfg, fmt.Errorf(`"type" %q needs a "url", not a "command"`, fs.Type)
	case fs.URL != "" && kind == "stdio":
		return cfg, errors.New(`"type" "stdio" needs a "command", not a "url"`)
	case fs.Command != "" && len(fs.Headers) > 0:
		return cfg, errors.New(`"headers" are for a "url" server, not a "command" one: pass secrets to a command through "env"`)
	case fs.URL != "" && (len(fs.Args) > 0 || len(fs.Env) > 0 || fs.Cwd != ""):
		return cfg, errors.New(`"args", "env" and "cwd" are for a "command" server, not a "url" one`)
	}
	if fs.Command != "" {
		cfg.Command = get(`"command"`, fs.Command)
		for i, a := range fs.Args {
			cfg.Args = append(cfg.Args, get(fmt.Sprintf(`"args"[%d]`, i), a))
		}
		envKeys := sortedKeys(fs.Env)
		for _, k := range envKeys {
			if !validVarName(k) {
				errs = append(errs, fmt.Errorf(`"env": %q is not a variable name`, clip(k)))
				continue
			}
			v := get(fmt.Sprintf(`"env".%s`, k), fs.Env[k])
			sec.add(v)
			cfg.Env = append(cfg.Env, k+"="+v)
		}
		cfg.Dir = get(`"cwd"`, fs.Cwd)
		return cfg, errors.Join(errs...)
	}
	raw := get(`"url"`, fs.URL)
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, errors.New(`"url" is not an http:// or https:// URL`))
	} else {
		if u.User != nil {
			sec.add(u.User.String())
			if p, ok := u.User.Password(); ok {
				sec.add(p)
			}
		}
		sec.add(u.RawQuery)
	}
	cfg.URL = raw
	for _, k := range sortedKeys(fs.Headers) {
		v := get(fmt.Sprintf(`"headers".%s`, k), fs.Headers[k])
		sec.add(v)
		if token, ok := strings.CutPrefix(v, "Bearer "); ok {
			sec.add(token)
		}
		if cfg.Header == nil {
			cfg.Header = http.Header{}
		}
		cfg.Header.Set(k, v)
	}
	return cfg, errors.Join(errs...)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonKind names a Go kind as JSON spells it.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	case "bool":
		return "true or false"
	case "int":
		return "a whole number"
	}
	return "another type"
}
