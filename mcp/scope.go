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

// tierOf returns the tier of a request's bearer credential: the anonymous
// tier without one, ok false for a credential nobody configured or a
// missing one when there is no anonymous tier.
func (s *Server) tierOf(h http.Header) (tools.Exposure, bool) {
	auth := h.Get("Authorization")
	if auth == "" {
		return s.cfg.Anonymous, s.cfg.Anonymous != ""
	}
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || token == "" {
		return "", false
	}
	d := sha256.Sum256([]byte(token))
	var tier tools.Exposure
	for _, c := range s.creds {
		if subtle.ConstantTimeCompare(d[:], c.digest[:]) == 1 {
			tier = c.tier
		}
	}
	return tier, tier != ""
}
