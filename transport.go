package tensorpool

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
)

// authTransport is the one http.RoundTripper NewClient installs: like
// oauth2.Transport, it only adds the key, and only for the base URL's exact
// origin; any other request leaves without an Authorization header.
type authTransport struct {
	base         http.RoundTripper // nil means http.DefaultTransport
	scheme, host string            // the base URL's origin
	auth         func(http.Header) // sets the key; the only place it is kept
}

// RoundTrip implements http.RoundTripper. It sends a copy of req (which it
// must not modify) and sets the response's Request back to req, so that the
// copy carrying the key never leaves.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := *req
	r.Header = maps.Clone(req.Header) // values are shared, never written
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

// RedirectError reports a redirect answered to a request of any method but
// GET and HEAD, which the client never follows: net/http would replay it as
// a GET, and the call would seem to succeed though the server never ran it.
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

// redirectPolicy is the http.Client.CheckRedirect NewClient installs: a GET
// or HEAD follows redirects as user (the caller's policy, if any; else
// net/http's default, at most 10) decides; any other method stops, and the
// doer returns a *RedirectError.
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

// urlString prints u without userinfo, as url.URL.Redacted does not: a user
// name can be a credential (https://tp-KEY@host). Without a host, the same
// mistake parses as a path or an opaque part ("tp-KEY@host/x"), so what
// precedes an '@' in its first segment is dropped too.
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
