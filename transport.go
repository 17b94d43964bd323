package tensorpool

import (
	"cmp"
	"errors"
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
	resp, err := cmp.Or(t.base, http.DefaultTransport).RoundTrip(&r)
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

// redirectPolicy is the http.Client.CheckRedirect NewClient installs: a GET
// or HEAD follows redirects as user (else net/http's default) decides; any
// other method stops there, its redirect being the response: net/http would
// replay it as a GET, which could seem to succeed though it never ran.
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
	for _, p := range []*string{&c.Opaque, &c.Path} {
		seg, _, _ := strings.Cut(*p, "/")
		if i := strings.LastIndexByte(seg, '@'); i >= 0 && c.Host == "" {
			*p, c.RawPath = (*p)[i+1:], ""
		}
	}
	return c.String()
}
