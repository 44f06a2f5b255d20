package server

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/quiver-go/quiver/internal/jsonpos"

	"github.com/quiver-go/quiver/tools"
)

// Role is what an API key may do.
type Role string

// The roles.
const (
	// RoleProvider publishes and serves toolsets whose names match its
	// globs.
	RoleProvider Role = "provider"
	// RoleConsumer reads the catalog and calls tools.
	RoleConsumer Role = "consumer"
	// RoleAdmin may do everything.
	RoleAdmin Role = "admin"
)

// Key is one entry of a keys file.
type Key struct {
	// Name identifies the key in logs; never the key itself.
	Name string `json:"name"`
	// Key is the secret, or empty when SHA256 gives its digest.
	Key string `json:"key,omitempty"`
	// SHA256 is the hex SHA-256 of the secret, for files that must not
	// hold it.
	SHA256 string `json:"sha256,omitempty"`
	// Role is provider, consumer or admin.
	Role Role `json:"role"`
	// Toolsets are the globs (path.Match syntax: "records", "records.*")
	// of the toolset names a provider may publish and serve.
	Toolsets []string `json:"toolsets,omitempty"`
	// Confirm are the globs (path.Match syntax over "toolset.tool":
	// "workspace.commitStagedEdits", "workspace.*") of the
	// confirmation-gated tools (tools.ToolSpec.Confirmation) a consumer
	// key may call: its holder confirms those calls itself (a person
	// behind it, or an operator who approved them). Without a grant a
	// consumer's call of a gated tool is refused as forbidden; an admin
	// key may call every gated tool, and lists none.
	Confirm []string `json:"confirm,omitempty"`
}

// Keys maps API keys to roles. The zero Keys (no file) lets every request
// through as admin: Config refuses it on a non-loopback address.
type Keys struct {
	entries []keyEntry
}

type keyEntry struct {
	digest [32]byte
	key    Key
}

// Principal is an authenticated caller.
type Principal struct {
	// Name is the key's name ("" with no keys configured).
	Name string
	Role Role
	// Toolsets are a provider's globs.
	Toolsets []string
	// Confirm are a consumer's grants of gated tools (Key.Confirm).
	Confirm []string
}

// MayConfirm reports whether p may call the confirmation-gated tool
// named tool: an admin (and so every caller of a keyless registry) may, a
// consumer when one of its Confirm globs matches it.
func (p Principal) MayConfirm(tool tools.Ident) bool {
	switch p.Role {
	case RoleAdmin:
		return true
	case RoleConsumer:
		for _, g := range p.Confirm {
			if ok, _ := path.Match(g, string(tool)); ok {
				return true
			}
		}
	}
	return false
}

// MayPublish reports whether p may publish or serve the toolset named name.
func (p Principal) MayPublish(name string) bool {
	switch p.Role {
	case RoleAdmin:
		return true
	case RoleProvider:
		for _, g := range p.Toolsets {
			if ok, _ := path.Match(g, name); ok {
				return true
			}
		}
	}
	return false
}

// MayConsume reports whether p may read the catalog and call tools.
func (p Principal) MayConsume() bool { return p.Role == RoleConsumer || p.Role == RoleAdmin }

// Configured reports whether any key is configured.
func (k *Keys) Configured() bool { return k != nil && len(k.entries) > 0 }

// Len is the number of keys.
func (k *Keys) Len() int {
	if k == nil {
		return 0
	}
	return len(k.entries)
}

// keyRing holds a service's current keys, swapped whole: a request reads
// the keys once, and sees either the old set or the new one.
type keyRing struct {
	current atomic.Pointer[Keys]
}

func newKeyRing(k *Keys) *keyRing {
	r := &keyRing{}
	r.current.Store(k)
	return r
}

// currentKeys are the keys the service checks requests against now.
func (s *Service) currentKeys() *Keys { return s.cfg.keys.current.Load() }

// Errors of SetKeys.
var (
	// ErrKeylessRegistry: a registry started without keys takes none
	// while it runs.
	ErrKeylessRegistry = errors.New("registry: the registry was started without keys (every request served as admin, on loopback only) and cannot take keys while it runs: restart it with keys")
	// ErrKeysRequired: a registry started with keys cannot drop them all.
	ErrKeysRequired = errors.New("registry: the registry was started with keys and cannot become keyless while it runs (a keyless registry serves every request as admin, and only on loopback): give at least one key, or restart it without keys")
)

// SetKeys replaces the keys every request is checked against from the next
// request on, without touching a connection: a key added is accepted at
// once, a key removed is refused (401) at once. Requests already past the
// front door — a provider's open call stream, a call waiting for its
// outcome — keep the principal they were let in with until they end.
//
// A keyless registry stays keyless and a keyed one keyed: keyless mode
// serves every request as admin and is safe only on loopback, where the
// registry's own Host check guards it, so switching in either direction
// needs a restart. SetKeys refuses it with ErrKeylessRegistry or
// ErrKeysRequired and keeps the current keys.
func (s *Service) SetKeys(k *Keys) error {
	switch cur := s.currentKeys(); {
	case !cur.Configured() && k.Configured():
		return ErrKeylessRegistry
	case cur.Configured() && !k.Configured():
		return ErrKeysRequired
	case !cur.Configured():
		return nil // keyless stays keyless
	}
	s.cfg.keys.current.Store(k)
	return nil
}

// Lookup finds the key's principal, in time independent of which key
// matches.
func (k *Keys) Lookup(secret string) (Principal, bool) {
	if !k.Configured() {
		return Principal{Role: RoleAdmin}, true
	}
	d := sha256.Sum256([]byte(secret))
	var found *Key
	for i := range k.entries {
		if subtle.ConstantTimeCompare(d[:], k.entries[i].digest[:]) == 1 {
			found = &k.entries[i].key
		}
	}
	if found == nil || secret == "" {
		return Principal{}, false
	}
	return Principal{Name: found.Name, Role: found.Role, Toolsets: found.Toolsets, Confirm: found.Confirm}, true
}

// GenerateSecret returns a new random API key: "qk_" and 32 random bytes
// in hex.
func GenerateSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("registry: generate a key: %w", err)
	}
	return "qk_" + hex.EncodeToString(b[:]), nil
}

// ReadKeysFile reads a keys file: {"keys": [{"name", "key" | "sha256",
// "role", "toolsets", "confirm"}]}. Every problem is reported, with the entry it is in.
func ReadKeysFile(file string) (*Keys, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("registry: keys file: %w", err)
	}
	k, err := ParseKeys(data)
	if err != nil {
		return nil, fmt.Errorf("registry: keys file %s: %w", file, err)
	}
	return k, nil
}

// ParseKeys parses the content of a keys file.
func ParseKeys(data []byte) (*Keys, error) {
	var doc struct {
		Keys []Key `json:"keys"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a keys document ({\"keys\": [...]}): %w", jsonpos.Locate(data, dec, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("the keys document is followed by more data: keep one {\"keys\": [...]} document")
	}
	return NewKeys(doc.Keys...)
}

// NewKeys checks keys as a keys file's entries are checked and returns
// them as Keys. Every problem is reported, with the entry it is in.
func NewKeys(keys ...Key) (*Keys, error) {
	if len(keys) == 0 {
		return nil, errors.New(`no keys: list at least one {"name", "key", "role"}`)
	}
	var errs []error
	k := &Keys{}
	names := map[string]bool{}
	digests := map[[32]byte]bool{}
	for i, e := range keys {
		at := fmt.Sprintf("key %d (%q)", i, e.Name)
		var d [32]byte
		secret := false // d holds a valid secret's digest
		switch {
		case e.Name == "":
			errs = append(errs, fmt.Errorf("key %d: name is empty", i))
		case names[e.Name]:
			errs = append(errs, fmt.Errorf("%s: the name is used twice", at))
		}
		names[e.Name] = true
		switch {
		case (e.Key == "") == (e.SHA256 == ""):
			errs = append(errs, fmt.Errorf("%s: give exactly one of key and sha256", at))
		case e.Key != "":
			if len(e.Key) < 16 || strings.ContainsFunc(e.Key, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) }) {
				errs = append(errs, fmt.Errorf("%s: a key needs at least 16 characters and no spaces or control characters (a header must carry it)", at))
				break
			}
			d, secret = sha256.Sum256([]byte(e.Key)), true
		default:
			raw, err := hex.DecodeString(e.SHA256)
			if err != nil || len(raw) != 32 {
				errs = append(errs, fmt.Errorf("%s: sha256 must be 64 hex digits", at))
				break
			}
			copy(d[:], raw)
			secret = true
		}
		if secret && digests[d] {
			errs = append(errs, fmt.Errorf("%s: the same secret is listed twice", at))
		}
		digests[d] = true
		switch e.Role {
		case RoleProvider:
			if len(e.Toolsets) == 0 {
				errs = append(errs, fmt.Errorf("%s: a provider key lists the toolset globs it may publish (\"toolsets\")", at))
			}
			for _, g := range e.Toolsets {
				if _, err := path.Match(g, ""); err != nil || g == "" {
					errs = append(errs, fmt.Errorf("%s: toolset glob %q is malformed", at, g))
				}
			}
		case RoleConsumer, RoleAdmin:
			if len(e.Toolsets) > 0 {
				errs = append(errs, fmt.Errorf("%s: only provider keys list toolsets", at))
			}
		default:
			errs = append(errs, fmt.Errorf("%s: role %q is not provider, consumer or admin", at, e.Role))
		}
		switch {
		case len(e.Confirm) > 0 && e.Role == RoleAdmin:
			errs = append(errs, fmt.Errorf("%s: an admin key may call every gated tool: drop \"confirm\", or make the key a consumer", at))
		case len(e.Confirm) > 0 && e.Role != RoleConsumer:
			errs = append(errs, fmt.Errorf("%s: only consumer keys list \"confirm\" (the gated tools they may call)", at))
		}
		for _, g := range e.Confirm {
			if _, err := path.Match(g, ""); err != nil || g == "" {
				errs = append(errs, fmt.Errorf("%s: confirm glob %q is malformed: give a tool as toolset.tool, or a glob such as toolset.*", at, g))
			}
		}
		e.Key = ""
		k.entries = append(k.entries, keyEntry{digest: d, key: e})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return k, nil
}
