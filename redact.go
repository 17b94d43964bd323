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

// redacted replaces the key; minCut is the shortest start of a printed form
// of the key that, ending a text, counts as a cut key.
const (
	redacted = "[REDACTED]"
	minCut   = 4
)

// scrubber is the one redaction rule for one key (see the package
// documentation). Its functions are closures so that the key lives in them
// only: fmt prints a func as an address.
type scrubber struct {
	bytes func([]byte) []byte // the text with the key replaced (b itself if it holds none)
	has   func(string) bool   // whether the rule changes the text
}

// newScrubber returns the rule for key. Cost: a few scans, and at most one
// decoded copy when the text has a backslash.
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

// err returns err itself if its text holds no key, else a *redactedError.
func (s scrubber) err(err error) error {
	if err == nil || !s.has(err.Error()) {
		return err
	}
	return &redactedError{msg: s.text(err.Error()), err: err, has: s.has}
}

// printedForms lists the ways key can be printed, longest first. A valid
// key is printable ASCII (validKey), so JSON without HTML escaping is its Go
// quoting, and JSON's \u escapes, which escapedKey decodes, are the only
// other form.
func printedForms(key string) []string {
	html, _ := json.Marshal(key)
	q := strconv.Quote(key)
	out := []string{key, url.PathEscape(key), url.QueryEscape(key), (&url.URL{Path: key}).EscapedPath(),
		string(html[1 : len(html)-1]), q[1 : len(q)-1]}
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

// escapedKey reports whether t, once the JSON escapes that can stand for
// printable ASCII (\u0000-\u007f, \", \\, \/) are decoded left to right,
// holds a form or ends in a cut one.
func escapedKey[T ~string | ~[]byte](t T, forms []string) bool {
	dec := make([]byte, 0, len(t))
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '\\' && i+1 < len(t) {
			switch n := t[i+1]; {
			case n == '"' || n == '\\' || n == '/':
				c, i = n, i+1
			case n == 'u' && i+5 < len(t):
				if v, err := strconv.ParseUint(string(t[i+2:i+6]), 16, 8); err == nil && v < 0x80 {
					c, i = byte(v), i+5
				}
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

// redactedError is an error whose text held the key. It does not unwrap,
// which would hand the text back: errors.Is looks through it, errors.As
// finds only errors whose text is free of the key, and internal/transient
// sees what the original error was.
type redactedError struct {
	msg string
	err error
	has func(string) bool
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

// Transient implements transient.Marker on the original error.
func (e *redactedError) Transient() bool { return transient.Is(e.err) }
