package main

import (
	"context"
	"path/filepath"
)

// registryLookupHelp documents, in every registry client command's
// --help, where it finds the registry and its key.
const registryLookupHelp = `Where the registry and its key come from, first found wins: the registry
from --registry URL, then $` + envRegistryURL + `, then the endpoints file
(serve.json) a running quiver serve writes in its data folder (--data DIR,
by default the one quiver serve uses), then ` + defaultRegistryURL + `; the key
from --key-file FILE or --key KEY, then $` + envRegistryKey + `, then, when the
registry is quiver serve's, its consumer key file (registry-consumer.key,
which may list, search, resolve and call) beside it. An endpoints file left
by a quiver serve that is gone (killed) says so at once.`

// discovered is what the data folder's endpoints file gives a client
// command.
type discovered struct {
	url, keyFile string
	// from names the endpoints file, for messages.
	from string
}

// discoverServe reads the endpoints file of the data folder d and checks,
// at once, that its quiver serve still runs: nil when there is no file
// (or no data folder), an error wrapping errNotRunning when the server is
// gone.
func discoverServe(ctx context.Context, d *dataFolder) (*discovered, error) {
	if d.path == "" {
		return nil, nil
	}
	dir, err := filepath.Abs(d.path)
	if err != nil {
		return nil, nil
	}
	ep, err := readEndpoints(dir)
	if err != nil || ep == nil {
		return nil, err
	}
	if err := ep.alive(ctx); err != nil {
		return nil, notRunningError{err}
	}
	keyFile := ep.ConsumerKeyFile
	if keyFile == "" {
		keyFile = filepath.Join(dir, consumerKeyFile)
	}
	return &discovered{url: ep.Registry, keyFile: keyFile, from: filepath.Join(dir, endpointsFile)}, nil
}

// notRunningError is a stale endpoints file, with what to do.
type notRunningError struct{ err error }

func (e notRunningError) Error() string {
	return e.err.Error() + ": start it with `quiver serve` (or give a registry with --registry URL or $" + envRegistryURL + ")"
}

func (e notRunningError) Unwrap() error { return e.err }
