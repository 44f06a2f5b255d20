package tokencount

import (
	"strings"

	"github.com/quiver-go/quiver/tools"
)

// wireName is the function name a catalog tool goes out under. Providers
// accept only ^[a-zA-Z0-9_-]{1,64}$, so a catalog name such as the ident
// "workspace.startExport" or "filesystem.read_file" is sent with every
// other rune replaced by "_" and cut to 64 runes — what a catalog's wire
// names cost, give or take a collision suffix.
func wireName(name string) string {
	if tools.ValidWireName(name) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if b.Len() == tools.MaxWireNameLen {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
