package registry

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
)

// The alphabet and length of a call id. A call id travels in URL paths
// (POST /v1/calls/{call_id}/result, GET /v1/calls/{call_id}) and in logs,
// so it holds only characters that need no escaping there and cannot be
// read as a path step: ASCII letters and digits, '.', '_', ':' and '-',
// starting with a letter or digit (so "." and ".." are not ids).
const (
	// MaxCallIDLength is the longest call id the registry accepts, in bytes.
	MaxCallIDLength = 256
	// CallIDRule says what a call id may hold, as error messages quote it.
	CallIDRule = "1 to 256 of A-Z a-z 0-9 . _ : -, starting with a letter or digit"
)

// maxEchoed bounds how much of a refused call id an error message repeats.
const maxEchoed = 64

// CheckCallID reports whether id is a call id the registry accepts
// ([CallIDRule]). The error quotes at most 64 bytes of id.
func CheckCallID(id string) error {
	if ValidCallID(id) {
		return nil
	}
	return fmt.Errorf("call id %s is not 1 to %d of A-Z a-z 0-9 . _ : -, starting with a letter or digit: choose an id from that alphabet, the same on every retry", EchoID(id), MaxCallIDLength)
}

// ValidCallID reports whether id follows [CallIDRule].
func ValidCallID(id string) bool {
	if len(id) == 0 || len(id) > MaxCallIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == ':' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// EchoID quotes an identifier for an error message: at most its first 64
// bytes, with its length when it was cut, so that a hostile id is never
// repeated in full.
func EchoID(id string) string {
	if len(id) <= maxEchoed {
		return strconv.Quote(id)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(id[:maxEchoed]), len(id))
}

// hashedCallIDPrefix marks a call id derived by CallIDFor from parts
// outside the alphabet; its digit is the derivation's version.
const hashedCallIDPrefix = "qh1-"

// CallIDFor returns the registry call id of the tool call callID of run
// runID: "<run>:<call>" when that follows [CallIDRule] — the form every
// earlier release used, so a call already recorded keeps its id — and
// otherwise "qh1-" and the hex SHA-256 of the length-prefixed parts. The
// result depends only on its arguments, so every retry of a call sends
// the same id.
func CallIDFor(runID, callID string) string {
	if id := runID + ":" + callID; ValidCallID(id) {
		return id
	}
	h := sha256.New()
	for _, part := range []string{runID, callID} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	return hashedCallIDPrefix + hex.EncodeToString(h.Sum(nil))
}
