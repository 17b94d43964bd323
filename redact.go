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

// in reports whether s holds the key in any of its forms.
func (k secret) in(s string) bool {
	for _, f := range k.forms {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// scrub removes every occurrence of the key, in any of its forms, from s. A
// server echoing the Authorization header back in an error body, or a key
// passed where an id belongs (and escaped in a URL), must not put the key in
// an error string or a log line.
func (k secret) scrub(s string) string {
	for _, f := range k.forms {
		s = strings.ReplaceAll(s, f, redacted)
	}
	return s
}

// scrubBytes is scrub for byte slices; it returns b itself when the key does
// not occur in it.
func (k secret) scrubBytes(b []byte) []byte {
	for _, f := range k.forms {
		if bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
		}
	}
	return b
}

// scrubJSON is scrubBytes for a JSON document, which may hold the key with
// any escaping ("\u0074" for "t"): if decoding shows the key, the document
// is re-encoded canonically, with the key scrubbed.
func (k secret) scrubJSON(b []byte) []byte {
	b = k.scrubBytes(b)
	if k.s == "" || !json.Valid(b) {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return b
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return b
	}
	if scrubbed := k.scrubBytes(canon); !bytes.Equal(scrubbed, canon) {
		return scrubbed
	}
	return b
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
	if s := k.scrubJSON(raw); !bytes.Equal(s, raw) {
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
