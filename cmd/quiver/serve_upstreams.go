package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/quiver-go/quiver/mcp/gateway"
)

// loadUpstreams reads --upstreams, refusing a file others may change: it
// names the commands quiver serve starts.
func loadUpstreams(path string) (*gateway.Config, error) {
	if err := checkCommandFileMode("--upstreams", path); err != nil {
		return nil, err
	}
	cfg, err := gateway.LoadConfig(path)
	if err != nil {
		return nil, fmt.Errorf("--upstreams %w", err)
	}
	return cfg, nil
}

// upstreamsOnAttached refuses --upstreams when another quiver serve runs
// on the data folder: it publishes with its own keys, which this one does
// not hold.
func upstreamsOnAttached(dir string, ep *serveEndpoints) error {
	return fmt.Errorf("--upstreams: a quiver serve already runs on the data folder %s (%s) and this one would only attach to it, publishing nothing: stop it, or pass --data with another folder", dir, ep.describe())
}

// printUpstreams writes the banner's lines of the gateway's upstreams:
// each one's state, its tools, and what it warns of.
func printUpstreams(w io.Writer, gw *gateway.Gateway) {
	cfg := gw.Config()
	for _, st := range gw.Status() {
		fmt.Fprintf(w, "upstream  %s\n", upstreamLine(st))
		for _, s := range st.Skipped {
			fmt.Fprintf(w, "          left out: %s.%s: %s\n", st.Name, s.Name, strings.Join(strings.Fields(s.Reason), " "))
		}
	}
	for _, name := range cfg.Disabled {
		fmt.Fprintf(w, "upstream  %s: disabled in the file\n", name)
	}
	for _, warning := range cfg.Warnings {
		fmt.Fprintf(w, "warning   %s\n", warning)
	}
}

// upstreamLine says where one upstream stands.
func upstreamLine(st gateway.Status) string {
	skipped := ""
	if n := len(st.Skipped); n > 0 {
		skipped = fmt.Sprintf(" (%d left out, below)", n)
	}
	switch st.State {
	case gateway.Serving:
		return fmt.Sprintf("%s: %d tools, toolset %s%s", st.Name, st.Tools, st.Name, skipped)
	case gateway.Failed:
		return fmt.Sprintf("%s: FAILED: %s (retried with backoff, next in %s; the others serve)", st.Name, st.Err, max(time.Until(st.Retry), 0).Round(100*time.Millisecond))
	case gateway.Empty:
		return fmt.Sprintf("%s: lists no tool that can be served%s", st.Name, skipped)
	}
	return fmt.Sprintf("%s: still starting (published once it is ready)", st.Name)
}
