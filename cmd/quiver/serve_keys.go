package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/tools"
)

// The key files quiver serve writes in its data folder, readable by the
// user only (0600): the registry's keys, new at every start.
const (
	adminKeyFile    = "registry-admin.key"
	providerKeyFile = "registry-provider.key"
	// consumerKeyFile holds the MCP server's consumer key, for the
	// registry commands (which only read the catalog and call tools) and
	// for a quiver serve attaching to this one.
	consumerKeyFile = "registry-consumer.key"
)

// registryKeys are the API keys quiver serve's registry is started with:
// an admin key, a provider key and the consumer key of the MCP server,
// each written to its file for the user. No registry quiver serve
// starts is open: its MCP endpoint is the only face served without a key,
// and only without --keys.
type registryKeys struct {
	admin, provider, consumer string
	// adminFile, providerFile and consumerFile hold admin, provider and
	// consumer.
	adminFile, providerFile, consumerFile string
	keys                                  *server.Keys
}

// newRegistryKeys generates the keys, for their files in dir (writeFiles
// writes them, once the registry holds the store: until then, a quiver
// serve already running there keeps its own). approve are the gated tools the MCP
// server's consumer key may call (its "confirm" grant).
func newRegistryKeys(dir string, approve []string) (*registryKeys, error) {
	k := &registryKeys{adminFile: filepath.Join(dir, adminKeyFile), providerFile: filepath.Join(dir, providerKeyFile), consumerFile: filepath.Join(dir, consumerKeyFile)}
	for _, s := range []*string{&k.admin, &k.provider, &k.consumer} {
		secret, err := server.GenerateSecret()
		if err != nil {
			return nil, err
		}
		*s = secret
	}
	keys, err := server.NewKeys(
		server.Key{Name: "quiver-serve-admin", Key: k.admin, Role: server.RoleAdmin},
		server.Key{Name: "quiver-serve-provider", Key: k.provider, Role: server.RoleProvider, Toolsets: []string{"*"}},
		server.Key{Name: "quiver-serve-mcp", Key: k.consumer, Role: server.RoleConsumer, Confirm: approve},
	)
	if err != nil {
		return nil, err
	}
	k.keys = keys
	return k, nil
}

// writeFiles writes the keys to their files.
func (k *registryKeys) writeFiles() error {
	for _, f := range []struct{ path, secret string }{{k.adminFile, k.admin}, {k.providerFile, k.provider}, {k.consumerFile, k.consumer}} {
		if err := writeSecretFile(f.path, f.secret); err != nil {
			return err
		}
	}
	return nil
}

// writeSecretFile replaces path with a file holding secret and a newline,
// readable and writable by the user only (writePrivateFile).
func writeSecretFile(path, secret string) error {
	return writePrivateFile(path, []byte(secret+"\n"))
}

// writePrivateFile replaces path with a file holding data, readable and
// writable by the user only. It is written beside path and renamed over
// it, so a reader never sees half of it and the mode is never looser,
// even for a moment.
func writePrivateFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*") // 0600
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// approved are the gated tools the MCP server serves (mcp.Config.Approved):
// read from its registry key's grant, so that MCP and the registry agree.
// quiver serve grants exact tools only (--approve), never globs.
func (k *registryKeys) approved() []tools.Ident {
	p, _ := k.keys.Lookup(k.consumer)
	out := make([]tools.Ident, 0, len(p.Confirm))
	for _, name := range p.Confirm {
		out = append(out, tools.Ident(name))
	}
	return out
}
