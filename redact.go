package tensorpool

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/tensorpool/tensorpool-go/internal/transient"
)

// redacted replaces the key. minCut is the shortest start of a printed key
// that counts as a cut key. A key shorter than shortKey is replaced only
// where it stands alone, never as a cut key. minKey is NewClient's least.
const (
	redacted, minCut, shortKey, minKey = "[REDACTED]", 4, 8, 4
	errShortKey                        = "tensorpool: invalid API key: it is shorter than 4 characters"
)

// redactor is the one redaction rule for one key. Its functions are
// closures, so the key lives in them only: fmt prints a func as an address.
type redactor struct {
	text  func(string) string // for diagnostics: errors, log lines, an error response
	data  func([]byte) []byte // for a successful response: the whole key, in any escaped form
	value func(string) string // the same, for its header values
}

func newRedactor(key string) redactor {
	forms := slices.Compact([]string{key, url.PathEscape(key), url.QueryEscape(key), (&url.URL{Path: key}).EscapedPath()})
	raw := make([][]byte, len(forms))
	for i, f := range forms {
		raw[i] = []byte(f)
	}
	return redactor{
		text: func(s string) string { return scrub(s, forms, true) },
		data: func(b []byte) []byte {
			if bytes.IndexByte(b, '\\') < 0 && !slices.ContainsFunc(raw, func(f []byte) bool { return bytes.Contains(b, f) }) {
				return b // no form of the key, escaped or not: the common case, without a copy
			}
			s := string(b)
			if r := scrub(s, forms, false); r != s {
				return []byte(r)
			}
			return b
		},
		value: func(s string) string { return scrub(s, forms, false) },
	}
}

// alone reports whether s[i:j] stands alone: no letter or digit just
// before or after it.
func alone(s string, i, j int) bool {
	word := func(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' }
	return (i == 0 || !word(s[i-1])) && (j == len(s) || !word(s[j]))
}

// header applies rule to every value of h, in place.
func (redactor) header(h http.Header, rule func(string) string) {
	for _, vs := range h {
		for i, v := range vs {
			vs[i] = rule(v)
		}
	}
}

// scrub replaces each run of s that spells a form of the key once JSON
// (and Go) escapes are decoded (a form shorter than shortKey only where it
// stands alone). If cut, it also replaces a run that spells the start of a
// form of shortKey or more (minCut characters or more) where it ends s or a
// JSON string: a key cut by a size cap, a dropped connection or the server.
func scrub(s string, forms []string, cut bool) string {
	if !strings.Contains(s, `\`) && !slices.ContainsFunc(forms, func(f string) bool { return strings.Contains(s, f[:min(len(f), minCut)]) }) {
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
			if m == len(f) && (m >= shortKey || alone(s, i, j)) || cut && m >= minCut && len(f) >= shortKey && (j == len(s) || s[j] == '"') {
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
		b.WriteString(redacted)
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

// err returns err (never nil) itself if its text holds no key, else a *redactedError.
func (r redactor) err(err error) error {
	if msg := err.Error(); r.text(msg) != msg {
		return &redactedError{msg: r.text(msg), err: err, redact: r.text}
	}
	return err
}

// redactedError is an error whose text held the key. It does not unwrap,
// which would hand the text back: errors.Is looks through it, errors.As
// finds only errors whose text is free of the key, and internal/transient
// sees what the original error was.
type redactedError struct {
	msg    string
	err    error
	redact func(string) string
}

func (e *redactedError) Error() string        { return e.msg }
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }
func (e *redactedError) Transient() bool      { return transient.Is(e.err) }
func (e *redactedError) As(target any) bool {
	v := reflect.ValueOf(target).Elem()
	if !errors.As(e.err, target) {
		return false
	}
	if found, ok := v.Interface().(error); ok && found != nil && e.redact(found.Error()) != found.Error() {
		v.SetZero()
		return false
	}
	return true
}

// urlString prints u without userinfo, as url.URL.Redacted does not: a user
// name can be a credential (https://tp-KEY@host). Without a host, the same
// mistake parses as a path or an opaque part ("tp-KEY@host/x"), so what
// precedes an '@' in its first segment is dropped too.
func urlString(u *url.URL) string {
	c := *u
	c.User = nil
	for _, p := range []*string{&c.Opaque, &c.Path} {
		seg, _, _ := strings.Cut(*p, "/")
		if i := strings.LastIndexByte(seg, '@'); i >= 0 && c.Host == "" {
			*p, c.RawPath = (*p)[i+1:], ""
		}
	}
	return c.String()
}

// withoutUserinfo drops the userinfo from the URL of net/http's *url.Error:
// a redirect can lead to a URL whose user name is a credential.
func withoutUserinfo(err error) error {
	if ue, ok := err.(*url.Error); ok {
		if u, perr := url.Parse(ue.URL); perr == nil && u.User != nil {
			return &url.Error{Op: ue.Op, URL: urlString(u), Err: ue.Err}
		}
	}
	return err
}
