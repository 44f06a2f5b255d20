package mcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/quiver-go/quiver/tools"
)

// checkTier reports whether e is a client tier.
func checkTier(e tools.Exposure) error {
	if e.Rank() == 0 {
		return fmt.Errorf("tier %q is not one of read_only, staging, full", e)
	}
	return nil
}

// needs returns the tier a tool needs, or "" when it is served to no one:
// excluded, or undeclared without Config.Undeclared.
func (c *Config) needs(spec tools.ToolSpec) tools.Exposure {
	switch e := spec.Exposure; {
	case e == tools.ExposureExcluded:
		return ""
	case e == "":
		return c.Undeclared
	default:
		return e
	}
}

// allows reports whether a client of tier may see and call spec.
func (c *Config) allows(tier tools.Exposure, spec tools.ToolSpec) bool {
	need := c.needs(spec)
	return tier.Covers(need)
}

// credential is one configured bearer credential, kept hashed so
// comparison takes the same time whatever the guess.
type credential struct {
	digest [32]byte
	tier   tools.Exposure
}

// credKey names the credential a client holds, for the per-credential
// session cap: the index of a configured credential, anonymousCred for
// none.
type credKey int

// anonymousCred is the credential key of clients that send none.
const anonymousCred credKey = -1

// String names the credential in errors without repeating it.
func (k credKey) String() string {
	if k == anonymousCred {
		return "the anonymous tier (clients without a credential)"
	}
	return "this credential"
}

// credentialOf returns the tier and credential of a request's bearer
// credential: the anonymous tier without one, ok false for a credential
// nobody configured or a missing one when there is no anonymous tier.
func (s *Server) credentialOf(h http.Header) (tools.Exposure, credKey, bool) {
	auth := h.Get("Authorization")
	if auth == "" {
		return s.cfg.Anonymous, anonymousCred, s.cfg.Anonymous != ""
	}
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || token == "" {
		return "", 0, false
	}
	d := sha256.Sum256([]byte(token))
	var tier tools.Exposure
	key := anonymousCred
	for i, c := range s.creds {
		if subtle.ConstantTimeCompare(d[:], c.digest[:]) == 1 {
			tier, key = c.tier, credKey(i)
		}
	}
	return tier, key, tier != ""
}
