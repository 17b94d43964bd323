// Package servertext makes text that a server sent safe to put in an error or
// a log line: one rule, shared by package tensorpool and package wait.
package servertext

import (
	"strconv"
	"strings"
	"unicode"
)

// MaxLen caps a cleaned text, in bytes.
const MaxLen = 1024

// Clean returns s on one printable line of at most MaxLen bytes: invalid
// UTF-8 becomes U+FFFD, control and line/paragraph separator characters are
// escaped Go-style (ESC as \x1b, newline as \n), and a longer text is cut at
// a rune boundary and ends in "…". It does not remove an API key: that is
// the client's redaction, applied to bodies before they are parsed.
func Clean(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if b.Len() > MaxLen {
			break // it will be cut: stop reading a huge text
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'")) // \x1b, \n, \u2028
		} else {
			b.WriteRune(r)
		}
	}
	if out := b.String(); len(out) > MaxLen {
		return strings.ToValidUTF8(out[:MaxLen-len("…")], "") + "…" // no rune cut in two
	}
	return b.String()
}
