// Package keyredact is the one rule that finds an API key in text: as sent,
// path- or query-escaped, and behind JSON escapes. The root package redacts
// its diagnostics and its successful answers with it; tensorpooltest the
// requests it records.
package keyredact

import (
	"bytes"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Redacted replaces the key. MinCut is the shortest start of a printed key
// that counts as a cut key. A key shorter than shortKey is replaced only
// where it stands alone, never as a cut key.
const (
	Redacted, MinCut, shortKey = "[REDACTED]", 4, 8
)

// New returns the rule for key as closures, so that the key lives in them
// only: fmt prints a func as an address. text is for diagnostics: it also
// replaces a cut key. data and value replace the whole key, in any escaped
// form, in a body and in a string.
func New(key string) (text func(string) string, data func([]byte) []byte, value func(string) string) {
	forms := slices.Compact([]string{key, url.PathEscape(key), url.QueryEscape(key), (&url.URL{Path: key}).EscapedPath()})
	raw := make([][]byte, len(forms))
	for i, f := range forms {
		raw[i] = []byte(f)
	}
	text = func(s string) string { return scrub(s, forms, true) }
	data = func(b []byte) []byte {
		if bytes.IndexByte(b, '\\') < 0 && !slices.ContainsFunc(raw, func(f []byte) bool { return bytes.Contains(b, f) }) {
			return b // no form of the key, escaped or not: the common case, without a copy
		}
		s := string(b)
		if r := scrub(s, forms, false); r != s {
			return []byte(r)
		}
		return b
	}
	value = func(s string) string { return scrub(s, forms, false) }
	return text, data, value
}

// alone reports whether s[i:j] stands alone: no letter or digit just
// before or after it.
func alone(s string, i, j int) bool {
	word := func(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' }
	return (i == 0 || !word(s[i-1])) && (j == len(s) || !word(s[j]))
}

// scrub replaces each run of s that spells a form of the key once JSON
// (and Go) escapes are decoded (a form shorter than shortKey only where it
// stands alone). If cut, it also replaces a run that spells the start of a
// form of shortKey or more (MinCut characters or more) where it ends s or a
// JSON string: a key cut by a size cap, a dropped connection or the server.
func scrub(s string, forms []string, cut bool) string {
	if !strings.Contains(s, `\`) && !slices.ContainsFunc(forms, func(f string) bool {
		if cut { // without a backslash, a form is there whole, or its start if cut
			f = f[:min(len(f), MinCut)]
		}
		return strings.Contains(s, f)
	}) {
		return s
	}
	var b strings.Builder
	last := 0 // s[last:i] is not written yet
	for i := 0; i < len(s); {
		n := 0 // the bytes the longest match at i spans
		for _, f := range forms {
			j, m := i, 0
			for ; m < len(f) && j < len(s); m++ {
				c, w := decode(s, j)
				if c != f[m] {
					break
				}
				j += w
			}
			if m == len(f) && (m >= shortKey || alone(s, i, j)) || cut && m >= MinCut && len(f) >= shortKey && (j == len(s) || s[j] == '"') {
				n = max(n, j-i)
			}
		}
		if n == 0 {
			_, w := decode(s, i)
			i += w
			continue
		}
		if last == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		b.WriteString(Redacted)
		i, last = i+n, i+n
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// decode returns the character at s[i], decoding the JSON escapes that can
// stand for one of a key (printable ASCII): \", \\, \/ and \u0000-\u007f; and
// the bytes it spans. Matches start at such a token, so that the text of
// an escape ("\\u0074") is never read as one.
func decode(s string, i int) (byte, int) {
	if s[i] == '\\' && i+1 < len(s) {
		switch n := s[i+1]; {
		case n == '"' || n == '\\' || n == '/':
			return n, 2
		case n == 'u' && i+6 <= len(s):
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil && v < 0x80 {
				return byte(v), 6
			}
		}
	}
	return s[i], 1
}
