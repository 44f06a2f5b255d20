package gateway

import (
	"fmt"
	"strings"
)

// expand replaces ${VAR} and ${VAR:-default} in s with the variable's
// value from lookup, as MCP clients expand their mcpServers files: an
// unset variable without a default is an error naming it; "$$" is a
// literal "$" and a "$" not followed by "{" stays as is. Every value put
// in is handed to secret, so that what an expansion added never reaches a
// log or an error.
func expand(s string, lookup func(string) (string, bool), secret func(string)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c != '$':
			b.WriteByte(c)
			i++
			continue
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteByte('$')
			i += 2
			continue
		case !strings.HasPrefix(s[i:], "${"):
			b.WriteByte(c)
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("an unclosed ${ at offset %d: write ${NAME}, or $$ for a literal $", i)
		}
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validVarName(name) {
			return "", fmt.Errorf("${%s}: %q is not a variable name (letters, digits and _, not starting with a digit)", clip(ref), clip(name))
		}
		v, ok := lookup(name)
		switch {
		case ok && v != "":
		case hasDef:
			v = def
		case ok:
			// Set but empty: clients pass it on as empty.
		default:
			return "", fmt.Errorf("${%s}: the variable %s is not set: export it before starting quiver serve, or write ${%s:-default}", name, name, name)
		}
		secret(v)
		b.WriteString(v)
		i += end + 1
	}
	return b.String(), nil
}

// validVarName reports whether name is an environment variable name as
// shells write them.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// clip shortens what an error quotes from the file.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
