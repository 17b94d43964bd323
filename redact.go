package tensorpool

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/tensorpool/tensorpool-go/internal/transient"
)

// redacted replaces the API key wherever a text would show it; minCut is
// the length from which the start of a printed form of the key, ending a
// text, counts as the key cut short (at a size cap, by a dropped connection).
const (
	redacted = "[REDACTED]"
	minCut   = 4
)

// scrubber is the one redaction rule for one key. Its functions are
// closures: the key lives in them only, and fmt prints a func as an address.
type scrubber struct {
	bytes func([]byte) []byte // the text with the key replaced (b itself if it holds none)
	has   func(string) bool   // whether the rule changes the text
}

// newScrubber returns the rule for key: every occurrence of a printed form
// of the key (as is, percent-encoded, JSON- or Go-escaped) is replaced by
// "[REDACTED]", and so is the end of a text that is the first minCut or more
// bytes of a form (a cut key). A text whose JSON escapes (\u0074 for 't',
// \/ ...) spell a form or a cut form once decoded is withheld whole: it
// becomes "[REDACTED]". Cost: a few scans, and at most one decoded copy.
func newScrubber(key string) scrubber {
	forms := printedForms(key)
	has := func(s string) bool {
		for _, f := range forms {
			if strings.Contains(s, f) {
				return true
			}
		}
		return cutKey(s, forms) > 0 || strings.IndexByte(s, '\\') >= 0 && escapedKey(s, forms)
	}
	scrub := func(b []byte) []byte {
		for _, f := range forms {
			if bytes.Contains(b, []byte(f)) {
				b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
			}
		}
		if n := cutKey(b, forms); n > 0 {
			b = append(b[:len(b)-n:len(b)-n], redacted...)
		}
		if bytes.IndexByte(b, '\\') >= 0 && escapedKey(b, forms) {
			return []byte(redacted)
		}
		return b
	}
	return scrubber{bytes: scrub, has: has}
}

// text is the rule for a string.
func (s scrubber) text(t string) string {
	if !s.has(t) {
		return t
	}
	return string(s.bytes([]byte(t)))
}

// err returns err itself if its text holds no key, else a *redactedError
// with the text scrubbed, classified (transient or not) on err as it was.
func (s scrubber) err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if !s.has(msg) {
		return err
	}
	return &redactedError{msg: s.text(msg), err: err, transient: transient.Is(err), has: s.has}
}

// printedForms lists the ways key can be printed, longest first: as is,
// percent-encoded, and in a JSON (HTML-escaped or not) or Go string. A
// valid key is printable ASCII (validKey): JSON's \u escapes of any of its
// characters are the only other form, which escapedKey decodes.
func printedForms(key string) []string {
	var html, plain bytes.Buffer
	_ = json.NewEncoder(&html).Encode(key)
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(key)
	unquote := func(q string) string { q = strings.TrimSpace(q); return q[1 : len(q)-1] }
	out := []string{key, url.PathEscape(key), url.QueryEscape(key), (&url.URL{Path: key}).EscapedPath(),
		unquote(html.String()), unquote(plain.String()), unquote(strconv.Quote(key))}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// cutKey returns the length of the longest end of t, minCut bytes or more,
// that is the start (not the whole) of a form, or 0.
func cutKey[T ~string | ~[]byte](t T, forms []string) int {
	best := 0
	for _, f := range forms {
		for n := min(len(f)-1, len(t)); n >= minCut && n > best; n-- {
			if t[len(t)-n] == f[0] && string(t[len(t)-n:]) == f[:n] {
				best = n
				break
			}
		}
	}
	return best
}

// escapedKey reports whether t, once its JSON escapes are decoded, holds a
// form or ends in a cut one. Only the escapes that can stand for printable
// ASCII are decoded (\uXXXX below 0x80, \", \\, \/), left to right, in a
// string literal or not; any other backslash stays as it is.
func escapedKey[T ~string | ~[]byte](t T, forms []string) bool {
	dec := make([]byte, 0, len(t))
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '\\' && i+1 < len(t) {
			switch n := t[i+1]; {
			case n == '"' || n == '\\' || n == '/':
				c, i = n, i+1
			case n == 'u' && i+5 < len(t) && t[i+2] == '0' && t[i+3] == '0' && unhex(t[i+4]) < 8 && unhex(t[i+5]) < 16:
				c, i = unhex(t[i+4])<<4|unhex(t[i+5]), i+5
			}
		}
		dec = append(dec, c)
	}
	for _, f := range forms {
		if bytes.Contains(dec, []byte(f)) {
			return true
		}
	}
	return cutKey(dec, forms) > 0
}

// unhex is the value of a hex digit, or 255.
func unhex(c byte) byte {
	if i := strings.IndexByte("0123456789abcdef", c|0x20); i >= 0 && c >= '0' {
		return byte(i)
	}
	return 255
}

// redactedError is an error whose text held the key. It does not unwrap,
// which would hand the text back: errors.Is looks through it, errors.As
// finds only errors whose text is free of the key, and internal/transient
// sees what the original error was.
type redactedError struct {
	msg       string
	err       error
	transient bool
	has       func(string) bool
}

// Error implements error.
func (e *redactedError) Error() string { return e.msg }

// Is reports whether the original error matches target (errors.Is).
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }

// As finds target in the original error's chain, unless that prints the key.
func (e *redactedError) As(target any) bool {
	if !errors.As(e.err, target) {
		return false
	}
	v := reflect.ValueOf(target).Elem()
	if found, ok := v.Interface().(error); ok && found != nil && e.has(found.Error()) {
		v.SetZero()
		return false
	}
	return true
}

// Transient reports whether the original error was transient (transient.Marker).
func (e *redactedError) Transient() bool { return e.transient }
