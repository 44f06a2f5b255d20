package main

import (
	"fmt"
	"strconv"
	"strings"
)

// maxEchoRunes bounds a query echoed back in a message.
const maxEchoRunes = 80

// echo returns s quoted for a message, on one line and cut to maxEchoRunes
// runes with "…" when longer, so that a pasted paragraph does not drown
// the message that repeats it.
func echo(s string) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > maxEchoRunes {
		s = string(r[:maxEchoRunes-1]) + "…"
	}
	return strconv.Quote(s)
}

// oneLine collapses white space so that a value fits in one table cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// count returns n followed by the singular or plural noun: "1 tool",
// "2 tools", "0 tools".
func count(n int, singular, plural string) string {
	if n == 1 {
		return "1 " + singular
	}
	return fmt.Sprintf("%d %s", n, plural)
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
