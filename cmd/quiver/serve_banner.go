package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiver-go/quiver/mcp/gateway"
	"github.com/quiver-go/quiver/tools"
)

// serveBanner is what quiver serve's banner says.
type serveBanner struct {
	mcpURL   string // "" for stdio
	registry string
	// keys is the key files line; empty when attached.
	keys    string
	dir     string
	toolset string // the toolset line ("" with upstreams)
	// upstreams is the gateway of --upstreams, nil without.
	upstreams *gateway.Gateway
	// pruned are the toolsets an earlier run published, removed now.
	pruned   []string
	attached *serveEndpoints
	opts     quickServeOptions
	creds    map[string]tools.Exposure
}

// print says where everything is and how to connect. It names the key
// files, never a key.
func (b serveBanner) print(w io.Writer) {
	if b.mcpURL != "" {
		fmt.Fprintf(w, "mcp       %s\n", b.mcpURL)
	} else {
		fmt.Fprintf(w, "mcp       stdio (this process's standard input and output)\n")
	}
	fmt.Fprintf(w, "registry  %s (API keys required)\n", b.registry)
	fmt.Fprintf(w, "openapi   %s/openapi.json\n", b.registry)
	if b.attached != nil {
		fmt.Fprintf(w, "attached  to the quiver serve already running on this data folder (%s): its registry and toolsets, nothing published again; when it stops, calls fail saying so\n", b.attached.describe())
	} else {
		fmt.Fprintf(w, "keys      %s\n", b.keys)
	}
	fmt.Fprintf(w, "data      %s\n", b.dir)
	if b.upstreams != nil {
		printUpstreams(w, b.upstreams)
	} else {
		fmt.Fprintf(w, "toolset   %s\n", b.toolset)
	}
	if len(b.pruned) > 0 {
		fmt.Fprintf(w, "removed   %s: published by an earlier quiver serve on this data folder, not by this one\n", strings.Join(b.pruned, ", "))
	}
	if b.opts.undeclared != "" {
		fmt.Fprintf(w, "undeclared tools need the %s tier (--undeclared)\n", b.opts.undeclared)
	}
	if b.opts.callTool {
		fmt.Fprintf(w, "tool list fixed: search_tools, call_tool and the inline tools (--call-tool)\n")
	}
	switch {
	case len(b.creds) > 0:
		fmt.Fprintf(w, "clients   %d credentials from %s (Authorization: Bearer <key>)\n", len(b.creds), b.opts.keys)
	default:
		fmt.Fprintf(w, "clients   anyone on this machine, full tier (no --keys)\n")
	}
	bin, install := quiverCommand()
	fmt.Fprintf(w, "\nConnect:\n")
	if install != "" {
		fmt.Fprintf(w, "  first           %s\n", install)
	}
	dataArgs := ""
	if b.opts.data.flagGiven {
		dataArgs = " --data " + shellQuote(b.dir)
	}
	// A stdio client attaches to this quiver serve (its registry, its
	// upstreams); the MCP server's own flags go with it.
	var mcpFlags []string
	if b.opts.undeclared != "" {
		mcpFlags = append(mcpFlags, "--undeclared", b.opts.undeclared)
	}
	if b.opts.callTool {
		mcpFlags = append(mcpFlags, "--call-tool")
	}
	if b.mcpURL != "" {
		auth := ""
		if len(b.creds) > 0 {
			auth = fmt.Sprintf(" (with one of %s's keys: Authorization: Bearer <key>)", b.opts.keys)
		}
		fmt.Fprintf(w, "  MCP Inspector   npx @modelcontextprotocol/inspector --cli %s --transport http --method tools/list%s\n", b.mcpURL, auth)
	} else {
		fmt.Fprintf(w, "  MCP Inspector   npx @modelcontextprotocol/inspector --cli %s serve --stdio%s --method tools/list\n", shellQuote(bin), dataArgs)
	}
	args := `"serve", "--stdio"`
	if dataArgs != "" {
		args += `, "--data", ` + jsonString(b.dir)
	}
	for _, f := range mcpFlags {
		args += ", " + jsonString(f)
	}
	fmt.Fprintf(w, "  Claude Desktop  add to claude_desktop_config.json: {\"mcpServers\": {\"quiver\": {\"command\": %s, \"args\": [%s]}}}\n", jsonString(bin), args)
	fmt.Fprintf(w, "  registry        %s registry ls%s\n", shellQuote(bin), dataArgs)
	fmt.Fprintf(w, "  docs            docs/mcp.md\n")
	if b.mcpURL != "" {
		fmt.Fprintf(w, "Serving until Ctrl-C (SIGINT) or SIGTERM.\n")
	}
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// quiverCommand is the command a client should start to run quiver: the
// absolute path of this binary, or, when it is go run's temporary build
// (whose path changes with every build), where go install puts it, with
// the install line to run first.
func quiverCommand() (bin, install string) {
	exe, err := os.Executable()
	if err == nil {
		if resolved, rerr := filepath.EvalSymlinks(exe); rerr == nil {
			exe = resolved
		}
	}
	if err == nil && !isGoRunBuild(exe) {
		return exe, ""
	}
	bin = filepath.Join(goInstallDir(), "quiver")
	return bin, "go install ./cmd/quiver (this is go run's temporary build, whose path changes with every build; go install puts quiver in $(go env GOPATH)/bin, here " + bin + ": add that folder to PATH)"
}

// isGoRunBuild reports whether exe is a binary go run built: one in a
// temporary go-build folder (…/go-build123/b001/exe/NAME) or in the build
// cache, where go run keeps what it builds (…/go-build/a3/HASH-d/NAME, or
// under $GOCACHE).
func isGoRunBuild(exe string) bool {
	exe = filepath.ToSlash(exe)
	if cache := os.Getenv("GOCACHE"); cache != "" && strings.HasPrefix(exe, filepath.ToSlash(cache)+"/") {
		return true
	}
	parts := strings.Split(exe, "/")
	if len(parts) < 3 {
		return false
	}
	dir := parts[len(parts)-2]
	for _, p := range parts[:len(parts)-2] {
		if strings.HasPrefix(p, "go-build") && (dir == "exe" || strings.HasSuffix(dir, "-d")) {
			return true
		}
	}
	return false
}

// goInstallDir is where go install puts a command, as far as the
// environment says without running go: $GOBIN, else the first folder of
// $GOPATH's bin, else ~/go/bin.
func goInstallDir() string {
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		return gobin
	}
	if gopath := filepath.SplitList(os.Getenv("GOPATH")); len(gopath) > 0 && gopath[0] != "" {
		return filepath.Join(gopath[0], "bin")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, "go", "bin")
	}
	return filepath.Join("$(go env GOPATH)", "bin")
}
