package tensorpool

import (
	"errors"
	"fmt"
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
	// sent in an HTTP header as is (it contains spaces, control or non-ASCII
	// characters). The error never includes the key.
	ErrInvalidAPIKey = errors.New("tensorpool: invalid API key: it contains spaces, control or non-ASCII characters")

	// ErrInvalidBaseURL is returned (wrapped) by NewClient for a base URL
	// that is not an absolute http(s) URL with a host, or that carries
	// credentials.
	ErrInvalidBaseURL = errors.New("tensorpool: invalid base URL")

	// ErrInsecureBaseURL is returned (wrapped) by NewClient for a plain
	// http:// base URL whose host is not a loopback address, unless
	// WithInsecureHTTP is given: the API key would travel in clear text.
	ErrInsecureBaseURL = errors.New("tensorpool: refusing plain http to a non-loopback host (the API key would travel in clear text); use https or WithInsecureHTTP")
)

// NewClient returns the generated TensorPool client, configured by opts
// and as the package documentation describes, with the User-Agent
// "tensorpool-go/<version> go/<version> (<os>; <arch>)". Pass the
// generated methods' results through Check.
func NewClient(opts ...Option) (*gen.ClientWithResponses, error) {
	cfg := config{baseURL: DefaultBaseURL, timeout: DefaultTimeout, retry: DefaultRetryPolicy(), maxBody: DefaultMaxResponseBytes}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if !cfg.keySet {
		cfg.key = strings.TrimSpace(os.Getenv(EnvAPIKey))
	}
	if cfg.key == "" {
		return nil, ErrNoAPIKey
	}
	if !validKey(cfg.key) {
		return nil, ErrInvalidAPIKey
	}
	scrub := newScrubber(cfg.key)
	if env := strings.TrimSpace(os.Getenv(EnvBaseURL)); !cfg.baseURLSet && env != "" {
		cfg.baseURL = env
	}
	u, err := checkBaseURL(cfg.baseURL, cfg.insecureHTTP)
	if err != nil {
		return nil, scrub.err(err) // it quotes the URL
	}
	hc := &http.Client{}
	if cfg.httpClient != nil {
		*hc = *cfg.httpClient
		if !cfg.timeoutSet && hc.Timeout != 0 {
			cfg.timeout = hc.Timeout
		}
	}
	hc.Timeout = 0 // the doer bounds the whole call, body included
	hc.Transport = &authTransport{base: hc.Transport, scheme: u.Scheme, host: u.Host, auth: bearer(cfg.key)}
	hc.CheckRedirect = redirectPolicy(hc.CheckRedirect)
	d := &doer{hc: hc, scrub: scrub, timeout: cfg.timeout, retry: cfg.retry, maxBody: cfg.maxBody, logger: cfg.logger,
		userAgent: []string{userAgent(cfg.userAgent)}, basePath: strings.TrimSuffix(u.Path, "/"), validate: !cfg.noValidation}
	return gen.NewClientWithResponses(cfg.baseURL, append(cfg.editors, gen.WithHTTPClient(d))...)
}

// validKey reports whether k can travel in an Authorization header as is:
// printable ASCII, no space.
func validKey(k string) bool {
	return !strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f })
}

// checkBaseURL parses the base URL and applies the https rule. Errors quote
// it without userinfo, or not at all if it does not parse.
func checkBaseURL(raw string, insecureOK bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error quotes the whole URL
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidBaseURL, err)
	}
	switch {
	case u.User != nil:
		return nil, fmt.Errorf("%w %q: it must not carry credentials (the API key goes in TENSORPOOL_KEY or WithAPIKey)", ErrInvalidBaseURL, urlString(u))
	case u.Scheme != "https" && u.Scheme != "http" || u.Host == "":
		return nil, fmt.Errorf("%w %q: want an absolute http(s) URL such as %s", ErrInvalidBaseURL, urlString(u), DefaultBaseURL)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("%w %q: it must not have a query or fragment", ErrInvalidBaseURL, urlString(u))
	case u.Scheme == "http" && !insecureOK && !isLoopback(u.Hostname()):
		return nil, fmt.Errorf("%w: %q", ErrInsecureBaseURL, urlString(u))
	}
	return u, nil
}

// isLoopback reports whether plain http to host keeps the key on this
// machine: a loopback IP literal, or exactly "localhost", which net/http
// never proxies (unlike "LOCALHOST" or "*.localhost").
func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
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
