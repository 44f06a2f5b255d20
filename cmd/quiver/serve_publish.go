package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/quiver-go/quiver/internal/jsonpos"

	"github.com/quiver-go/quiver/internal/boundedinput"
	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/internal/workspacedemo"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// publication is the workspace toolset's provider, running in this
// process.
type publication struct {
	toolset string
	tools   int
	cancel  context.CancelFunc
	done    chan error
}

// stop drains the provider and waits for it.
func (p *publication) stop() {
	p.cancel()
	<-p.done
}

// workspaceRevisionPrefix starts the revision of the workspace toolset
// quiver serve publishes.
const workspaceRevisionPrefix = "records-"

// publishWorkspace publishes the records example's workspace toolset — its
// generated declaration, executed by the in-memory demo workspace —
// through provider (a provider key), and waits until the registry routes
// calls to it, reading the listing through consumer (a consumer key).
func publishWorkspace(ctx context.Context, provider, consumer *registry.Client, log *slog.Logger) (*publication, error) {
	decl, err := catalogs.WorkspaceToolset()
	if err != nil {
		return nil, err
	}
	decl.Version = "1.0.0"
	fp, err := contract.Fingerprint(decl)
	if err != nil {
		return nil, err
	}
	// The revision follows the contract, so a restart with the same
	// declaration serves the same registration.
	revision := workspaceRevisionPrefix + strings.TrimPrefix(fp, "sha256:")[:12]
	pctx, cancel := context.WithCancel(context.Background())
	p := &publication{toolset: decl.Name, tools: len(decl.Tools), cancel: cancel, done: make(chan error, 1)}
	go func() {
		p.done <- registry.Serve(pctx, provider, registry.Registration{Toolset: decl, Revision: revision, Provider: "quiver serve", Logger: log}, workspacedemo.New())
	}()
	// The provider's own end (Serve returned) cuts the wait short, and its
	// error is the one to report.
	wctx, cancelWait := context.WithTimeout(ctx, 10*time.Second)
	defer cancelWait()
	ended := make(chan error, 1)
	go func() {
		select {
		case err := <-p.done:
			ended <- err
			p.done <- err
			cancelWait()
		case <-wctx.Done():
		}
	}()
	if err := consumer.WaitServed(wctx, decl.Name, revision); err != nil {
		select {
		case perr := <-ended:
			if perr == nil {
				perr = errors.New("it returned without an error")
			}
			err = fmt.Errorf("its provider stopped: %w", perr)
		default:
		}
		p.stop()
		return nil, fmt.Errorf("publish toolset %s: %w", decl.Name, err)
	}
	return p, nil
}

// clientKeys is the --keys file of quiver serve.
type clientKeys struct {
	Clients []struct {
		Name string         `json:"name"`
		Key  string         `json:"key"`
		Tier tools.Exposure `json:"tier"`
	} `json:"clients"`
}

// maxKeysFile bounds the --keys file.
const maxKeysFile = 1 << 20

// readClientKeys reads --keys: bearer credentials and their tiers. An
// empty path means none.
func readClientKeys(path string) (map[string]tools.Exposure, error) {
	if path == "" {
		return nil, nil
	}
	r, err := boundedinput.Open(path, maxKeysFile)
	if err != nil {
		return nil, fmt.Errorf("--keys: %w", err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("--keys: %w", err)
	}
	var f clientKeys
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var e *jsonpos.Error
		if !errors.As(jsonpos.Locate(data, dec, err), &e) {
			return nil, fmt.Errorf("--keys %s: %w", path, err)
		}
		return nil, fmt.Errorf(`--keys %s:%d:%d: %s (want {"clients": [{"name": "ide", "key": "<secret>", "tier": "read_only"}]})`, path, e.Line, e.Column, e.Problem())
	}
	out := map[string]tools.Exposure{}
	var errs []error
	for i, c := range f.Clients {
		switch {
		case c.Key == "" || strings.ContainsAny(c.Key, " \t\r\n"):
			errs = append(errs, fmt.Errorf("client %d (%q): the key is empty or has spaces", i, c.Name))
		case c.Tier.Rank() == 0:
			errs = append(errs, fmt.Errorf("client %d (%q): tier %q is not read_only, staging or full", i, c.Name, c.Tier))
		case out[c.Key] != "":
			errs = append(errs, fmt.Errorf("client %d (%q): its key is another client's", i, c.Name))
		default:
			out[c.Key] = c.Tier
		}
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("it lists no client"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("--keys %s: %w", path, err)
	}
	return out, nil
}
