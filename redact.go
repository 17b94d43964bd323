package tensorpool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tensorpool/tensorpool-go/gen"
)

// redacted replaces the API key wherever this package prints, logs or
// reports something that could contain it.
const redacted = "[REDACTED]"

// secret holds the API key. Every way fmt and log/slog can print it
// (%v, %+v, %#v, %s, %q, %x, slog attributes) prints "[REDACTED]" instead;
// only reveal returns the key, and only the transport calls it.
type secret struct {
	s     string
	forms []string // the ways s can appear in what we print, longest first
}

// newSecret holds key, with its printed forms worked out once: scrubbing
// runs on every request.
func newSecret(key string) secret { return secret{s: key, forms: printedForms(key)} }

func (k secret) reveal() string { return k.s }

// String implements fmt.Stringer.
func (k secret) String() string {
	if k.s == "" {
		return ""
	}
	return redacted
}

// GoString implements fmt.GoStringer.
func (k secret) GoString() string { return fmt.Sprintf("%q", k.String()) }

// Format implements fmt.Formatter, so that no verb (%x included) prints the key.
func (k secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, k.GoString())
		return
	}
	fmt.Fprint(f, k.String())
}

// LogValue implements slog.LogValuer.
func (k secret) LogValue() slog.Value { return slog.StringValue(k.String()) }

// printedForms lists the ways key can appear in what we print, longest
// first: as is, percent-encoded (url.PathEscape, url.QueryEscape, a URL's
// escaped path), and escaped in a JSON or Go string literal.
func printedForms(key string) []string {
	if key == "" {
		return nil
	}
	var html bytes.Buffer
	_ = json.NewEncoder(&html).Encode(key) // "\u003c" for '<'
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(key)
	out := []string{
		key,
		url.PathEscape(key),
		url.QueryEscape(key),
		(&url.URL{Path: key}).EscapedPath(),
		unquote(strings.TrimSpace(html.String())),
		unquote(strings.TrimSpace(plain.String())),
		unquote(strconv.Quote(key)),
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// unquote drops the first and last byte of a quoted literal.
func unquote(q string) string {
	if len(q) < 2 {
		return q
	}
	return q[1 : len(q)-1]
}

// in reports whether s holds the key in any of its forms, also once its
// JSON escapes are decoded (see scrubBytes).
func (k secret) in(s string) bool {
	for _, f := range k.forms {
		if strings.Contains(s, f) {
			return true
		}
	}
	return strings.IndexByte(s, '\\') >= 0 && k.inDecoded(unescapeJSON(s))
}

// scrub removes every occurrence of the key, in any of its forms, from s. A
// server echoing the Authorization header back in an error body, or a key
// passed where an id belongs (and escaped in a URL), must not put the key in
// an error string or a log line. See scrubBytes for escaped forms.
func (k secret) scrub(s string) string {
	for _, f := range k.forms {
		s = strings.ReplaceAll(s, f, redacted)
	}
	if out, ok := scrubEscaped(k, s); ok {
		return string(out)
	}
	return s
}

// scrubBytes is scrub for byte slices, such as a response body; it returns
// b itself when the key does not occur in it.
//
// Besides the key's printed forms, it removes the key written with any mix
// of JSON escapes (\u0074 for 't', surrogate pairs, \/ ...), whether b is
// valid JSON or not (cut at a size cap, broken, HTML) and whether the
// escapes are in a string literal or not: b's JSON escapes are decoded,
// left to right, and every run of b whose decoding holds a form of the key
// is replaced by "[REDACTED]". A run within a string literal is whole
// escapes and characters, so valid JSON stays valid. Should the key still
// show after that (only a key holding '[' or ']', or part of "[REDACTED]",
// could), the whole of b is withheld: scrubBytes returns "[REDACTED]".
//
// Cost: without a backslash in b, nothing beyond the search for the printed
// forms; with one, a single allocation of len(b) for the decoded copy, and
// more only when the key is there.
func (k secret) scrubBytes(b []byte) []byte {
	for _, f := range k.forms {
		if bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
		}
	}
	if out, ok := scrubEscaped(k, b); ok {
		return out
	}
	return b
}

// scrubEscaped removes the key written with JSON escapes from b (see
// scrubBytes); ok is false, and out nil, when b does not hold it.
func scrubEscaped[T string | []byte](k secret, b T) (out []byte, ok bool) {
	if len(k.forms) == 0 || !hasBackslash(b) || !k.inDecoded(unescapeJSON(b)) {
		return nil, false
	}
	// The key is there (rare): map decoded bytes back to the runs of b
	// they come from. tok[d] is the start in b of the escape or byte that
	// decoded byte d comes from; tok[len] is len(b).
	tok := make([]int, 0, len(b)+1)
	dec := unescapeJSONAt(b, &tok)
	tok = append(tok, len(b))
	cut := make([]bool, len(b))
	for _, f := range k.forms {
		for d := 0; ; d++ {
			j := bytes.Index(dec[d:], []byte(f))
			if j < 0 {
				break
			}
			d += j
			// from the start of the escape holding dec[d] to the end of
			// the one holding dec[d+len(f)-1]
			last, e := d+len(f)-1, len(b)
			for x := last + 1; x < len(tok); x++ {
				if tok[x] != tok[last] {
					e = tok[x]
					break
				}
			}
			for x := tok[d]; x < e; x++ {
				cut[x] = true
			}
		}
	}
	out = make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if !cut[i] {
			out = append(out, b[i])
			continue
		}
		out = append(out, redacted...)
		for i+1 < len(b) && cut[i+1] {
			i++
		}
	}
	if k.in(string(out)) {
		return []byte(redacted), true
	}
	return out, true
}

func hasBackslash[T string | []byte](b T) bool {
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' {
			return true
		}
	}
	return false
}

// inDecoded reports whether b holds one of the key's forms.
func (k secret) inDecoded(b []byte) bool {
	for _, f := range k.forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	return false
}

// unescapeJSON decodes, left to right, every JSON escape in b, in a string
// literal or not; a backslash that starts no valid escape is kept as is.
func unescapeJSON[T string | []byte](b T) []byte { return unescapeJSONAt(b, nil) }

// unescapeJSONAt is unescapeJSON that, when tok is not nil, also appends to
// *tok, for each decoded byte, the offset in b of the escape or byte it
// comes from.
func unescapeJSONAt[T string | []byte](b T, tok *[]int) []byte {
	dec := make([]byte, 0, len(b)) // an escape decodes to fewer bytes than it spans
	for i := 0; i < len(b); {
		n, w := len(dec), 0
		if b[i] == '\\' {
			dec, w = appendEscape(dec, b[i:])
		}
		if w == 0 {
			dec, w = append(dec, b[i]), 1
		}
		if tok != nil {
			for range len(dec) - n {
				*tok = append(*tok, i)
			}
		}
		i += w
	}
	return dec
}

// appendEscape decodes the JSON escape at the start of b (b[0] == '\\'),
// appending what it stands for to dst, and returns how many bytes of b it
// spans, or 0 (dst unchanged) if b does not start with a valid escape. As
// in encoding/json, \uXXXX that is half of a surrogate pair spans the pair
// when its other half follows, and stands for U+FFFD alone.
func appendEscape[T string | []byte](dst []byte, b T) ([]byte, int) {
	if len(b) < 2 {
		return dst, 0
	}
	switch c := b[1]; c {
	case '"', '\\', '/':
		return append(dst, c), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return dst, 0
		}
		if utf16.IsSurrogate(r) {
			if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
				if r2, ok := hex4(b[8:]); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return utf8.AppendRune(dst, d), 12
					}
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r), 6
	}
	return dst, 0
}

// hex4 parses the 4 hex digits at the start of b.
func hex4[T string | []byte](b T) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for i := range 4 {
		c := b[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// scrubDetails scrubs the key from decoded 422 field errors: msg, type and
// every loc item.
func (k secret) scrubDetails(details []gen.ValidationError) {
	for i := range details {
		details[i].Msg = k.scrub(details[i].Msg)
		details[i].Type = k.scrub(details[i].Type)
		for j := range details[i].Loc {
			k.scrubLocItem(&details[i].Loc[j])
		}
	}
}

// scrubLocItem scrubs the key from one loc item, whatever its JSON shape: a
// string, a number, or anything a server put there.
func (k secret) scrubLocItem(item *gen.ValidationError_Loc_Item) {
	raw, err := item.MarshalJSON()
	if err != nil {
		return
	}
	if s := k.scrubBytes(raw); !bytes.Equal(s, raw) {
		_ = item.UnmarshalJSON(s)
	}
}

// urlString prints u for an error or a log line without its userinfo:
// url.URL.Redacted hides only the password, and a user name can be a
// credential (https://tp-KEY@host). Without a host, the same mistake parses
// as a path or an opaque part ("tp-KEY@host/x"): what comes before an '@'
// in its first segment is dropped too.
func urlString(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	if c.Host == "" {
		c.Opaque = dropUserinfo(c.Opaque)
		if p := dropUserinfo(c.Path); p != c.Path {
			c.Path, c.RawPath = p, ""
		}
	}
	return c.String()
}

// dropUserinfo removes "...@" from the start of s's first '/'-segment.
func dropUserinfo(s string) string {
	seg, _, _ := strings.Cut(s, "/")
	if i := strings.LastIndexByte(seg, '@'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// rawURLString is urlString for a URL held as a string, such as
// url.Error.URL; one that does not parse is left out entirely.
func rawURLString(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return urlString(u)
}

// scrubError returns err unchanged unless its message holds the key (or it
// is a *url.Error whose URL has userinfo); then an error with the key
// scrubbed: a *url.Error keeps its type (URL without userinfo, URL and cause
// scrubbed), anything else becomes a scrubbedError, which still matches
// errors.Is against the original chain.
func (k secret) scrubError(err error) error {
	if ue, ok := err.(*url.Error); ok && strings.Contains(ue.URL, "@") {
		c := *ue
		c.URL = rawURLString(c.URL)
		err = &c
	}
	if err == nil || !k.in(err.Error()) {
		return err
	}
	if ue, ok := err.(*url.Error); ok {
		c := *ue
		c.URL = k.scrub(c.URL)
		c.Err = k.scrubError(c.Err)
		return &c
	}
	return &scrubbedError{msg: k.scrub(err.Error()), err: err}
}

// scrubbedError is an error whose message held the key. It does not
// unwrap, which would give the key back; Is looks through it.
type scrubbedError struct {
	msg string
	err error
}

// Error implements error.
func (e *scrubbedError) Error() string { return e.msg }

// Is reports whether the original error matches target (errors.Is).
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }
