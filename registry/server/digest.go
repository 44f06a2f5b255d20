package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// The versions of a call's request digest, the idempotency check of a call
// id: a retry must send the payload its first attempt sent.
const (
	// digestV2 digests the payload's canonical JSON (tools.CanonicalJSON:
	// keys sorted, numbers as written, duplicate keys refused before).
	digestV2 = "sha256v2:"
	// digestV1 digested the payload as encoding/json re-encoded the map it
	// had decoded (keys sorted, numbers as written, the last of duplicate
	// keys kept, HTML characters escaped). Calls recorded under it are read
	// back until their retention ends.
	digestV1 = "sha256:"
)

// requestDigest is the digest recorded for a new call: digestV2 of its
// canonical payload.
func requestDigest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return digestV2 + hex.EncodeToString(sum[:])
}

// sameRequest reports whether a retry sends the payload a recorded call
// was accepted with: digest is the retry's digestV2, raw its payload as
// sent, for a call recorded under digestV1.
func sameRequest(recorded, digest string, raw []byte) bool {
	if strings.HasPrefix(recorded, digestV2) {
		return recorded == digest
	}
	return strings.HasPrefix(recorded, digestV1) && recorded == legacyDigest(raw)
}

// legacyDigest computes digestV1 of a payload as sent.
func legacyDigest(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return digestV1 + hex.EncodeToString(sum[:])
}
