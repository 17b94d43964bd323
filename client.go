package tensorpool

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

const (
	// DefaultBaseURL is the TensorPool API.
	DefaultBaseURL = "https://engine.tensorpool.dev"

	// EnvAPIKey names the environment variable NewClient reads the API key
	// from, as the official tp CLI does.
	EnvAPIKey = "TENSORPOOL_KEY"

	// EnvBaseURL names the environment variable that overrides
	// DefaultBaseURL, as in the official tp CLI.
	EnvBaseURL = "TENSORPOOL_ENGINE"

	// DefaultTimeout bounds one call: all its attempts, the waits between
	// them, and reading the response body. See WithTimeout.
	DefaultTimeout = 60 * time.Second

	// DefaultMaxResponseBytes caps a response body. See WithMaxResponseBytes.
	DefaultMaxResponseBytes int64 = 8 << 20
)

var (
	// ErrNoAPIKey is returned by NewClient when neither WithAPIKey nor the
	// TENSORPOOL_KEY environment variable gives an API key.
	ErrNoAPIKey = errors.New("tensorpool: no API key: set " + EnvAPIKey + " or use WithAPIKey")

	// ErrInvalidAPIKey is returned by NewClient for a key that cannot be
	// sent in an HTTP header (it contains spaces or control characters).
	// The error never includes the key.
	ErrInvalidAPIKey = errors.New("tensorpool: invalid API key: it contains spaces or control characters")

	// ErrInvalidBaseURL is returned (wrapped) by NewClient for a base URL
	// that is not an absolute http(s) URL with a host, or that carries
	// credentials.
	ErrInvalidBaseURL = errors.New("tensorpool: invalid base URL")

	// ErrInsecureBaseURL is returned (wrapped) by NewClient for a plain
	// http:// base URL whose host is not a loopback address, unless
	// WithInsecureHTTP is given: the API key would travel in clear text.
	ErrInsecureBaseURL = errors.New("tensorpool: refusing plain http to a non-loopback host (the API key would travel in clear text); use https or WithInsecureHTTP")
)

// NewClient returns the generated TensorPool client, configured:
//
//   - the API key comes from WithAPIKey, else from $TENSORPOOL_KEY (surrounding
//     white space trimmed); without one NewClient fails with ErrNoAPIKey. It is
//     sent as "Authorization: Bearer <key>", only to the base URL's scheme,
//     host and port: never to another host a redirect leads to.
//   - the base URL is WithBaseURL, else $TENSORPOOL_ENGINE, else
//     DefaultBaseURL. Plain http is refused unless the host is a loopback
//     IP literal or "localhost", or WithInsecureHTTP is given
//     (ErrInsecureBaseURL).
//   - requests carry "User-Agent: tensorpool-go/<version> go/<go version> (<os>; <arch>)".
//   - requests are retried as the package documentation describes, bounded by
//     DefaultTimeout per call (WithTimeout, WithRetryPolicy).
//   - response bodies are capped at DefaultMaxResponseBytes.
//   - requests that break a rule the API spec states fail before anything is
//     sent (see ValidateRequest).
//
// The generated methods return the HTTP response whatever its status: pass
// their results through Check to turn a non-2xx status into an *APIError.
func NewClient(opts ...Option) (*gen.ClientWithResponses, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if !cfg.keySet {
		cfg.key = newSecret(strings.TrimSpace(os.Getenv(EnvAPIKey)))
	}
	if cfg.key.reveal() == "" {
		return nil, ErrNoAPIKey
	}
	if !validKey(cfg.key.reveal()) {
		return nil, ErrInvalidAPIKey
	}
	if !cfg.baseURLSet {
		if env := strings.TrimSpace(os.Getenv(EnvBaseURL)); env != "" {
			cfg.baseURL = env
		}
	}

	hc := &http.Client{}
	if cfg.httpClient != nil {
		*hc = *cfg.httpClient
	}
	if cfg.timeoutSet || cfg.httpClient == nil || cfg.httpClient.Timeout == 0 {
		hc.Timeout = cfg.timeout
	}
	t := &transport{
		base:         hc.Transport,
		key:          cfg.key,
		userAgent:    userAgent(cfg.userAgent),
		retry:        cfg.retry,
		maxBodyBytes: cfg.maxBodyBytes,
		logger:       cfg.logger,
	}
	hc.Transport = t

	// The last option sees the outcome of every option before it: the base
	// URL (gen.WithBaseURL included) and any doer a passed-through
	// gen.WithHTTPClient installed, which it puts beneath our transport.
	var origin *url.URL
	install := func(c *gen.Client) error {
		u, err := checkBaseURL(c.Server, cfg.insecureHTTP)
		if err != nil {
			return err
		}
		origin = u
		if c.Client != nil {
			if uc, ok := c.Client.(*http.Client); ok {
				t.base = uc.Transport
				if hc.Jar == nil {
					hc.Jar = uc.Jar
				}
				if hc.CheckRedirect == nil {
					hc.CheckRedirect = uc.CheckRedirect
				}
			} else {
				t.base = doerTransport{c.Client}
			}
		}
		c.Client = &doer{hc: hc, key: cfg.key, basePath: u.Path, validate: !cfg.noValidation}
		return nil
	}
	genOpts := make([]gen.ClientOption, 0, len(cfg.clientOptions)+len(cfg.editors)+1)
	genOpts = append(genOpts, cfg.clientOptions...)
	for _, e := range cfg.editors {
		genOpts = append(genOpts, gen.WithRequestEditorFn(e))
	}
	genOpts = append(genOpts, install)
	c, err := gen.NewClientWithResponses(cfg.baseURL, genOpts...)
	if err != nil {
		return nil, cfg.key.scrubError(err) // a base URL error quotes the URL
	}
	t.origin = origin
	return c, nil
}

// validKey reports whether k can travel in an Authorization header as is.
func validKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if b := k[i]; b <= ' ' || b >= 0x7f {
			return false
		}
	}
	return true
}

// checkBaseURL parses the base URL and applies the https rule. Errors quote
// the URL without userinfo (see urlString); a URL that does not parse is not
// quoted at all.
func checkBaseURL(raw string, insecureOK bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error quotes the whole URL
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidBaseURL, err)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w %q: it must not carry credentials (the API key goes in TENSORPOOL_KEY or WithAPIKey)", ErrInvalidBaseURL, urlString(u))
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("%w %q: want an absolute http(s) URL such as %s", ErrInvalidBaseURL, urlString(u), DefaultBaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w %q: it must not have a query or fragment", ErrInvalidBaseURL, urlString(u))
	}
	if u.Scheme == "http" && !insecureOK && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("%w: %q", ErrInsecureBaseURL, urlString(u))
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// isLoopback reports whether plain http to host keeps the key on this
// machine: a loopback IP literal, or exactly "localhost". These are the
// hosts net/http's ProxyFromEnvironment never sends through a proxy (it
// matches "localhost" case-sensitively, so "LOCALHOST" would go through
// $HTTP_PROXY in clear text). "localhost" relies on the system resolver: Go
// looks it up like any name (/etc/hosts, then DNS; it has no built-in
// loopback answer), and every hosts file maps it to loopback. "*.localhost"
// is resolved the same way but is rarely in a hosts file and is proxied,
// so it is refused.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// userAgent is "[product ]tensorpool-go/<version> go/<go version> (<os>; <arch>)".
func userAgent(product string) string {
	ua := fmt.Sprintf("tensorpool-go/%s %s (%s; %s)", moduleVersion(), strings.Replace(runtime.Version(), "go", "go/", 1), runtime.GOOS, runtime.GOARCH)
	if product = strings.TrimSpace(product); product != "" {
		ua = product + " " + ua
	}
	return ua
}

// moduleVersion is this module's version as the Go toolchain recorded it in
// the binary, or "devel" (tests, a replace directive, a work tree).
func moduleVersion() string {
	const path = "github.com/tensorpool/tensorpool-go"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
			if d.Path == path && d.Version != "" && d.Version != "(devel)" {
				return d.Version
			}
		}
	}
	return "devel"
}

// doer is the gen.HttpRequestDoer NewClient installs. It sees each request
// after every request editor (the client's and the call's), so validation
// checks what is really sent; and it scrubs the key from errors, which
// net/http's *url.Error would otherwise print with the URL.
type doer struct {
	hc       *http.Client
	key      secret
	basePath string
	validate bool
}

// Format implements fmt.Formatter, so that no verb prints the key.
func (d *doer) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "tensorpool.doer{basePath:%q validate:%t}", d.basePath, d.validate)
}

// LogValue implements slog.LogValuer, with the key left out.
func (d *doer) LogValue() slog.Value { return slog.StringValue(fmt.Sprint(d)) }

// Do implements gen.HttpRequestDoer.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	err := checkHeaders(req)
	if err == nil && d.validate {
		err = ValidateRequest(req, d.basePath)
	}
	if err != nil {
		var ire *InvalidRequestError
		if errors.As(err, &ire) {
			ire.Path, ire.Reason = d.key.scrub(ire.Path), d.key.scrub(ire.Reason)
		}
		return nil, d.key.scrubError(err)
	}
	resp, err := d.hc.Do(req)
	if ue, ok := err.(*url.Error); ok {
		switch ue.Err.(type) {
		case *DecodeError, *ResponseTooLargeError, *bodyReadError:
			err = ue.Err // these name the method and path already
		}
	}
	return resp, d.key.scrubError(err)
}

// doerTransport adapts a gen.HttpRequestDoer that is not an *http.Client.
// Such a doer receives requests that carry the key, so it must not follow
// redirects itself: if its answer comes from another origin than the one
// asked, the answer is refused with ErrDoerRedirected.
type doerTransport struct{ d gen.HttpRequestDoer }

// ErrDoerRedirected is returned when a gen.WithHTTPClient doer that is not
// an *http.Client followed a redirect to another origin by itself, with the
// key (see WithClientOptions).
var ErrDoerRedirected = errors.New("tensorpool: the request doer followed a redirect to another origin itself; it must not follow redirects (use an *http.Client, whose redirects NewClient checks)")

// RoundTrip implements http.RoundTripper.
func (d doerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := d.d.Do(r)
	if err == nil && resp == nil {
		return nil, ErrNilResponse
	}
	if err == nil && resp.Request != nil && resp.Request.URL != nil &&
		!(strings.EqualFold(resp.Request.URL.Scheme, r.URL.Scheme) && strings.EqualFold(resp.Request.URL.Host, r.URL.Host)) {
		discard(resp)
		return nil, ErrDoerRedirected
	}
	return resp, err
}
