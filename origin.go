package tensorpool

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// origin is the base URL's scheme and host, the only origin that gets the
// key; it sends each attempt of a call.
type origin struct {
	scheme, host string
	auth         func(http.Header) // sets the key: the only place it is kept
	agent        []string          // the User-Agent header's value
}

// bearer returns the auth step for key.
func bearer(key string) func(http.Header) {
	v := []string{"Bearer " + key} // shared by every request, never written
	return func(h http.Header) { h["Authorization"] = v }
}

// send sends one attempt at req through hc, bounded by ctx.
// The attempt is a copy of req: the key (for the origin only) and the
// User-Agent go in the copy's own header, and a retry rewinds the body.
// So the request the caller can reach never holds the key.
func (o origin) send(ctx context.Context, hc *http.Client, req *http.Request, attempt int) (*http.Response, error) {
	r := req.WithContext(ctx)
	r.Header = make(http.Header, len(req.Header)+2)
	for k, v := range req.Header {
		r.Header[k] = v // values are shared, never written
	}
	if strings.EqualFold(r.URL.Scheme, o.scheme) && strings.EqualFold(r.URL.Host, o.host) {
		o.auth(r.Header)
	} else {
		delete(r.Header, "Authorization") // a request editor sent it elsewhere
	}
	if ua := req.Header["User-Agent"]; len(ua) > 0 && ua[0] != "" {
		r.Header["User-Agent"] = []string{ua[0] + " " + o.agent[0]}
	} else {
		r.Header["User-Agent"] = o.agent // shared, never written
	}
	if attempt > 1 && req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		rewound, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("tensorpool: rewinding the request body for a retry: %w", err)
		}
		r.Body = rewound
	}
	resp, err := hc.Do(r)
	return resp, withoutUserinfo(err)
}

// redirectPolicy is the http.Client.CheckRedirect NewClient installs. A GET
// or HEAD follows redirects as user (else net/http) decides, and the key
// goes only to the origin, even where net/http would keep it. For any other
// method, the redirect is the response: net/http would replay it as a GET.
func (o origin) redirectPolicy(user func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Scheme, o.scheme) || !strings.EqualFold(req.URL.Host, o.host) {
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
