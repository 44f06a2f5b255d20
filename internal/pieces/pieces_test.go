package pieces

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPiecesJoinToTheTextAndNeverCutACharacter(t *testing.T) {
	for _, text := range []string{"", "one", "Tokyo is partly cloudy at 18 °C.", "日本語のテキスト", `{"city":"Tōkyō"}`} {
		if got := strings.Join(Words(text), ""); got != text {
			t.Errorf("Words(%q) join to %q", text, got)
		}
		for _, n := range []int{1, 2, 3, 8} {
			ps := Bytes(text, n)
			if got := strings.Join(ps, ""); got != text {
				t.Errorf("Bytes(%q, %d) join to %q", text, n, got)
			}
			for _, p := range ps {
				if !utf8.ValidString(p) {
					t.Errorf("Bytes(%q, %d) cut a character: %q", text, n, p)
				}
			}
		}
	}
	if got := Words("a b c"); len(got) != 3 || got[0] != "a " {
		t.Errorf("Words = %q", got)
	}
}
