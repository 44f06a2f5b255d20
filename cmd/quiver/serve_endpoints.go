package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/quiver-go/quiver/internal/boundedinput"
)

// endpointsFile is where quiver serve writes its endpoints in its data
// folder, for the registry commands and for a second quiver serve to find
// it: readable by the user only, removed on a clean exit.
const endpointsFile = "serve.json"

// maxEndpointsFile bounds the endpoints file read.
const maxEndpointsFile = 64 << 10

// aliveTimeout bounds the dial that tells whether the registry an
// endpoints file names still listens: a loopback dial is answered (or
// refused) at once.
const aliveTimeout = 500 * time.Millisecond

// serveEndpoints is the content of the endpoints file (serve.json).
type serveEndpoints struct {
	// PID is the process of the quiver serve that owns the registry.
	PID int `json:"pid"`
	// Registry is its registry's URL.
	Registry string `json:"registry"`
	// MCP is its MCP endpoint's URL; empty when it serves stdio.
	MCP string `json:"mcp,omitempty"`
	// Stdio says it serves one client on its standard streams.
	Stdio bool `json:"stdio"`
	// Version is its quiver --version.
	Version string `json:"version"`
	// Started is when it started.
	Started time.Time `json:"started"`
	// ConsumerKeyFile holds the consumer key its MCP server calls with;
	// the registry commands and an attached quiver serve use it too.
	ConsumerKeyFile string `json:"consumer_key_file"`
	// Approved are the gated tools the consumer key may call (--approve).
	Approved []string `json:"approved,omitempty"`
}

// errNotRunning marks an endpoints file whose quiver serve is gone.
var errNotRunning = errors.New("quiver serve is not running")

// describe names the server an endpoints file describes, for messages.
func (e *serveEndpoints) describe() string {
	where := e.Registry
	if e.MCP != "" {
		where = e.MCP
	} else if e.Stdio {
		where += ", MCP on stdio"
	}
	return fmt.Sprintf("pid %d, %s", e.PID, where)
}

// writeEndpoints replaces dir's endpoints file with e (0600, written
// beside it and renamed).
func writeEndpoints(dir string, e *serveEndpoints) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return writePrivateFile(filepath.Join(dir, endpointsFile), append(b, '\n'))
}

// removeEndpoints deletes dir's endpoints file if it still names pid (a
// later quiver serve may have replaced it).
func removeEndpoints(dir string, pid int) {
	e, err := readEndpoints(dir)
	if err == nil && e != nil && e.PID == pid {
		_ = os.Remove(filepath.Join(dir, endpointsFile))
	}
}

// readEndpoints reads dir's endpoints file: nil, nil when there is none.
func readEndpoints(dir string) (*serveEndpoints, error) {
	path := filepath.Join(dir, endpointsFile)
	r, err := boundedinput.Open(path, maxEndpointsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("quiver serve's endpoints file: %w", err)
	}
	defer r.Close()
	var e serveEndpoints
	if err := json.NewDecoder(r).Decode(&e); err != nil {
		return nil, fmt.Errorf("quiver serve's endpoints file %s: %v: delete it, then start quiver serve again", path, err)
	}
	if e.PID <= 0 || e.Registry == "" {
		return nil, fmt.Errorf("quiver serve's endpoints file %s names no process or registry: delete it, then start quiver serve again", path)
	}
	return &e, nil
}

// alive reports, at once, whether the quiver serve e describes still runs:
// its process exists and its registry accepts connections. The error says
// why not, wrapping errNotRunning.
func (e *serveEndpoints) alive(ctx context.Context) error {
	if !processAlive(e.PID) {
		return fmt.Errorf("%w (%s: the process has exited)", errNotRunning, e.describe())
	}
	u, err := url.Parse(e.Registry)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w (%s: the registry URL does not parse)", errNotRunning, e.describe())
	}
	dctx, cancel := context.WithTimeout(ctx, aliveTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(dctx, "tcp", u.Host)
	if err != nil {
		why := "its registry does not answer"
		if errors.Is(err, syscall.ECONNREFUSED) {
			why = "its registry " + e.Registry + " refuses connections"
		}
		return fmt.Errorf("%w (%s: %s)", errNotRunning, e.describe(), why)
	}
	_ = conn.Close()
	return nil
}

// runningServe returns the quiver serve running on dir, or nil when its
// endpoints file is missing or names a server that is gone.
func runningServe(ctx context.Context, dir string) *serveEndpoints {
	e, err := readEndpoints(dir)
	if err != nil || e == nil {
		return nil
	}
	if e.alive(ctx) != nil {
		return nil
	}
	return e
}
