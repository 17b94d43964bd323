package tensorpool

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// redirectPolicy is the http.Client.CheckRedirect NewClient installs. A GET
// or HEAD follows redirects as user (else net/http's default) decides, and
// the key goes only to the base URL's origin (scheme, host and port), even
// where net/http would keep it (a subdomain, another port). Any other
// method stops there, its redirect being the response: net/http would
// replay it as a GET, which could seem to succeed though it never ran.
func redirectPolicy(user func(*http.Request, []*http.Request) error, scheme, host string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Scheme, scheme) || !strings.EqualFold(req.URL.Host, host) {
			delete(req.Header, "Authorization")
		}
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

// bearer returns the auth step for key.
func bearer(key string) func(http.Header) {
	v := []string{"Bearer " + key} // shared by every request, never written
	return func(h http.Header) { h["Authorization"] = v }
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
