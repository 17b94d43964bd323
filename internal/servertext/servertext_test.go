package servertext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a\x1b[31mred\nnext", `a\x1b[31mred\nnext`},
		{"tab\there\r", `tab\there\r`},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"sep\u2028x", `sep\u2028x`},
		{"", ""},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCleanCaps(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("x", 900<<10),
		strings.Repeat("é", 2000),
		strings.Repeat("\x1b", 2000),
		strings.Repeat("y", MaxLen),
		strings.Repeat("y", MaxLen+1),
	} {
		got := Clean(in)
		if len(got) > MaxLen || !utf8.ValidString(got) {
			t.Errorf("Clean(%d bytes) = %d bytes (valid UTF-8 %v), want <= %d", len(in), len(got), utf8.ValidString(got), MaxLen)
		}
		if len(in) > MaxLen && !strings.HasSuffix(got, "…") {
			t.Errorf("Clean(%d bytes) does not end in an ellipsis", len(in))
		}
	}
	if got := Clean(strings.Repeat("y", MaxLen)); got != strings.Repeat("y", MaxLen) {
		t.Errorf("a text of exactly MaxLen bytes was changed")
	}
}

func FuzzClean(f *testing.F) {
	f.Add("a\x1b[2Jb\n")
	f.Add(strings.Repeat("\u2028", 600))
	f.Fuzz(func(t *testing.T, s string) {
		got := Clean(s)
		if len(got) > MaxLen || !utf8.ValidString(got) {
			t.Fatalf("Clean(%q) = %q", s, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
				t.Fatalf("Clean(%q) = %q keeps control character %U", s, got, r)
			}
		}
	})
}
