package tensorpool

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/tensorpool/tensorpool-go/internal/keyredact"
	"github.com/tensorpool/tensorpool-go/internal/transient"
)

// redacted replaces the key, and minCut is the shortest start of a printed
// key that counts as a cut key (internal/keyredact). minKey is NewClient's least.
const (
	redacted, minCut, minKey = keyredact.Redacted, keyredact.MinCut, 4
	errShortKey              = "tensorpool: invalid API key: it is shorter than 4 characters"
)

// redactor is the one redaction rule for one key. Its functions are
// closures, so the key lives in them only: fmt prints a func as an address.
type redactor struct {
	text  func(string) string // for diagnostics: errors, log lines, an error response
	data  func([]byte) []byte // for a successful response: the whole key, in any escaped form
	value func(string) string // the same, for its header values
}

func newRedactor(key string) redactor {
	text, data, value := keyredact.New(key)
	return redactor{text: text, data: data, value: value}
}

// header applies rule to every value of h, in place.
func (redactor) header(h http.Header, rule func(string) string) {
	for _, vs := range h {
		for i, v := range vs {
			vs[i] = rule(v)
		}
	}
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
