package tensorpool

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// authTransport is the one http.RoundTripper NewClient installs: like
// oauth2.Transport, it only adds the key, and only to a request for the
// base URL's exact origin (scheme, host and port). Any other request leaves
// without an Authorization header, even where net/http would keep one (a
// subdomain, another port, https to http).
type authTransport struct {
	base         http.RoundTripper // nil means http.DefaultTransport
	scheme, host string            // the base URL's origin
	auth         func(http.Header) // sets the key; the only place it is kept
}

// RoundTrip implements http.RoundTripper. It sends a copy of req (which it
// must not modify) and hands the response back untouched, but for its
// Request field: req, so that the copy carrying the key never leaves.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := *req
	r.Header = make(http.Header, len(req.Header)+1)
	for k, v := range req.Header {
		r.Header[k] = v // values are shared, never written
	}
	if strings.EqualFold(r.URL.Scheme, t.scheme) && strings.EqualFold(r.URL.Host, t.host) {
		t.auth(r.Header)
	} else {
		delete(r.Header, "Authorization")
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(&r)
	if resp != nil {
		resp.Request = req
	}
	return resp, err
}

// bearer returns the auth step for key.
func bearer(key string) func(http.Header) {
	v := []string{"Bearer " + key} // shared by every request, never written
	return func(h http.Header) { h["Authorization"] = v }
}

// ErrRedirected is matched (errors.Is) by every *RedirectError.
var ErrRedirected = errors.New("tensorpool: redirect not followed")

// RedirectError reports a redirect answered to a request that changes
// something (any method but GET and HEAD). The client never follows one:
// net/http would replay a POST or DELETE as a GET, and the call would seem
// to succeed although the server never ran it.
type RedirectError struct {
	StatusCode int    // the redirect's status (301, 302, 303, 307, 308)
	Method     string // request method
	Path       string // request path, without host or query
	Location   string // where the server redirected to, without userinfo, cleaned for printing
}

// Error implements error.
func (e *RedirectError) Error() string {
	return fmt.Sprintf("tensorpool: %s %s: %d %s to %q not followed (a %s is never sent to another URL)",
		e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode), e.Location, e.Method)
}

// Is makes errors.Is(err, ErrRedirected) hold.
func (e *RedirectError) Is(target error) bool { return target == ErrRedirected }

// redirectPolicy is the http.Client.CheckRedirect NewClient installs: a
// GET or HEAD follows redirects (through user, the caller's own policy, if
// any; else at most 10), the key going along only to the base URL's origin
// (authTransport); any other method stops at the redirect, which the doer
// turns into a *RedirectError.
func redirectPolicy(user func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		switch {
		case !isSafeMethod(via[0].Method):
			return http.ErrUseLastResponse
		case user != nil:
			return user(req, via)
		case len(via) >= 10:
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// urlString prints u for an error or a log line without its userinfo:
// url.URL.Redacted hides only the password, and a user name can be a
// credential (https://tp-KEY@host). Without a host, the same mistake parses
// as a path or an opaque part ("tp-KEY@host/x"): what comes before an '@'
// in its first segment is dropped too.
func urlString(u *url.URL) string {
	c := *u
	c.User = nil
	if c.Host == "" {
		drop := func(s string) string {
			seg, _, _ := strings.Cut(s, "/")
			if i := strings.LastIndexByte(seg, '@'); i >= 0 {
				return s[i+1:]
			}
			return s
		}
		c.Opaque = drop(c.Opaque)
		if p := drop(c.Path); p != c.Path {
			c.Path, c.RawPath = p, ""
		}
	}
	return c.String()
}
