package server

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// TokenProtocol is the version of the token derivation. Changing the
// derivation changes every token, so it needs a new version.
const TokenProtocol = "quiver-registry-token/1"

// TokenPrefix starts every registration token.
const TokenPrefix = "qrt1_"

// Token derives a registration's admission token from the protocol version,
// the toolset's name, its fingerprint and the deployment's revision: the
// hex SHA-256 of the four, each length-prefixed. Replicas publishing the
// same (fingerprint, revision) compute the same token without talking to
// each other, and a token names exactly one contract. It is an admission
// check, not a credential: access is the API key's business.
func Token(toolset, fingerprint, revision string) string {
	h := sha256.New()
	for _, s := range []string{TokenProtocol, toolset, fingerprint, revision} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return TokenPrefix + hex.EncodeToString(h.Sum(nil))
}
