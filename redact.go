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
		return len(cutKeys(s, forms)) > 0 || strings.IndexByte(s, '\\') >= 0 && escapedKey(s, forms)
	}
	scrub := func(b []byte) []byte {
		for _, f := range forms {
			if bytes.Contains(b, []byte(f)) {
				b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
			}
		}
		if spans := cutKeys(b, forms); len(spans) > 0 {
			out, last := make([]byte, 0, len(b)), 0
			for _, sp := range spans {
				out = append(append(out, b[last:sp[0]]...), redacted...)
				last = sp[1]
			}
			b = append(out, b[last:]...)
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

// cutKeys returns the spans of t that are the start (minCut bytes or more,
// not the whole) of a form and end a text: at t's end, or before the '"'
// that closes a JSON string (a message the server cut). A key cut at a size
// cap or by a dropped connection ends the body; one a server cut ends a field.
func cutKeys[T string | []byte](t T, forms []string) (spans [][2]int) {
	if !slices.ContainsFunc(forms, func(f string) bool { return len(f) > minCut && contains(t, f[:minCut]) }) {
		return nil // the common case, found with strings.Index's fast search
	}
	for i := 0; i < len(t); i++ {
		best := 0
		for _, f := range forms {
			n := 0
			for n < len(f) && i+n < len(t) && t[i+n] == f[n] {
				n++
			}
			if n >= minCut && n < len(f) && n > best && (i+n == len(t) || t[i+n] == '"') {
				best = n
			}
		}
		if best > 0 {
			spans = append(spans, [2]int{i, i + best})
			i += best - 1
		}
	}
	return spans
}

// contains reports whether t holds sub.
func contains[T string | []byte](t T, sub string) bool {
	if b, ok := any(t).([]byte); ok {
		return bytes.Contains(b, []byte(sub))
	}
	return strings.Contains(string(t), sub)
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
	return len(cutKeys(dec, forms)) > 0
}

// unhex is the value of the hex digit c, or 16 if c is none. (strconv's
// parsers would need a string: an allocation per escape before Go 1.26.)
func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 16
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
