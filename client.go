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
	"github.com/tensorpool/tensorpool-go/internal/operations"
	"github.com/tensorpool/tensorpool-go/internal/pathparam"
)

const (
	// DefaultBaseURL is the TensorPool API.
	DefaultBaseURL = "https://engine.tensorpool.dev"
	// EnvAPIKey and EnvBaseURL name the environment variables NewClient
	// reads the API key and the base URL from, as the official tp CLI does.
	EnvAPIKey, EnvBaseURL = "TENSORPOOL_KEY", "TENSORPOOL_ENGINE"
	// DefaultTimeout bounds one call: all its attempts, the waits between
	// them and reading the response body (WithTimeout).
	DefaultTimeout = 60 * time.Second
	// DefaultMaxResponseBytes caps a response body (WithMaxResponseBytes).
	DefaultMaxResponseBytes int64 = 8 << 20
)

// NewClient returns the generated TensorPool client, configured by opts as
// the package documentation describes. Its User-Agent is
// "tensorpool-go/<version> go/<version> (<os>; <arch>)".
func NewClient(opts ...Option) (*gen.ClientWithResponses, error) {
	cfg := config{baseURL: DefaultBaseURL, timeout: DefaultTimeout, retry: DefaultRetryPolicy(), maxBody: DefaultMaxResponseBytes, httpClient: &http.Client{}}
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
	switch { // the error never includes the key
	case strings.ContainsFunc(cfg.key, func(r rune) bool { return r <= ' ' || r >= 0x7f }):
		return nil, errors.New("tensorpool: invalid API key: it contains spaces, control or non-ASCII characters")
	case len(cfg.key) < minKey: // redacting "a" or "s" would garble every message
		return nil, errors.New(errShortKey)
	}
	redact := newRedactor(cfg.key)
	if env := strings.TrimSpace(os.Getenv(EnvBaseURL)); !cfg.baseURLSet && env != "" {
		cfg.baseURL = env
	}
	u, err := checkBaseURL(cfg.baseURL, cfg.insecureHTTP)
	if err != nil {
		return nil, redact.err(err) // it quotes the URL
	}
	hc := *cfg.httpClient
	if !cfg.timeoutSet && hc.Timeout != 0 {
		cfg.timeout = hc.Timeout
	}
	hc.Timeout = 0 // the doer bounds the whole call, body included
	o := origin{scheme: u.Scheme, host: u.Host, auth: bearer(cfg.key), agent: []string{userAgent(cfg.userAgent)}}
	hc.CheckRedirect = o.redirectPolicy(hc.CheckRedirect)
	d := &doer{hc: &hc, origin: o, redact: redact, timeout: cfg.timeout, retry: cfg.retry, maxBody: cfg.maxBody,
		log: logger{cfg.logger, redact.text}, validate: !cfg.noValidation}
	base, err := gen.NewClient(cfg.baseURL, append(cfg.editors, gen.WithHTTPClient(d))...)
	if err != nil {
		return nil, redact.err(err)
	}
	return &gen.ClientWithResponses{ClientInterface: operations.NewClient(*base, d.checkPath)}, nil
}

// checkPath is operations.Client's check: an ErrInvalidRequest error for a
// path argument that the id rule refuses, or (unless validation is off)
// that breaks its schema. text is the argument as gen sends it, unescaped.
func (d *doer) checkPath(op *operations.Operation, i int, text string) error {
	why := pathparam.Invalid(text)
	if s := op.Params[i].Schema; why == "" && s != 0 && d.validate {
		why = operations.Table().CheckText(s, text)
	}
	if why != "" {
		return d.redact.err(&invalidRequest{op.Method, op.Path, op.Params[i].Name, why})
	}
	return nil
}

// checkBaseURL parses the base URL and applies the https rule; its errors
// quote it without userinfo. Plain http may go only to a loopback IP or
// exactly "localhost", which net/http never proxies ("LOCALHOST" it may).
func checkBaseURL(raw string, insecureOK bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("tensorpool: invalid base URL: %v", errors.Unwrap(err))
	}
	switch host := u.Hostname(); {
	case u.User != nil:
		return nil, fmt.Errorf("tensorpool: invalid base URL %q: it must not carry credentials (the API key goes in TENSORPOOL_KEY or WithAPIKey)", urlString(u))
	case u.Scheme != "https" && u.Scheme != "http" || u.Host == "":
		return nil, fmt.Errorf("tensorpool: invalid base URL %q: want an absolute http(s) URL such as %s", urlString(u), DefaultBaseURL)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("tensorpool: invalid base URL %q: it must not have a query or fragment", urlString(u))
	case u.Scheme == "http" && !insecureOK && host != "localhost" && !net.ParseIP(host).IsLoopback():
		return nil, fmt.Errorf("tensorpool: refusing plain http to %q, not a loopback host: the API key would travel in clear text (use https, or WithInsecureHTTP)", urlString(u))
	}
	if op := operationAt(u.EscapedPath()); op != "" {
		return nil, fmt.Errorf("tensorpool: invalid base URL: its path ends in an operation's (%s); give the API's root, such as %s", op, DefaultBaseURL)
	}
	return u, nil
}

// userAgent is "[product ]tensorpool-go/<version> go/<go version> (<os>; <arch>)".
func userAgent(product string) string {
	return strings.TrimSpace(strings.TrimSpace(product) + fmt.Sprintf(" tensorpool-go/%s %s (%s; %s)",
		moduleVersion(), strings.Replace(runtime.Version(), "go", "go/", 1), runtime.GOOS, runtime.GOARCH))
}

// moduleVersion is this module's version as the Go toolchain recorded it in
// the binary, or "devel" (tests, a replace directive, a work tree).
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range append(bi.Deps, &bi.Main) {
			if d.Path == "github.com/tensorpool/tensorpool-go" && d.Version != "" && d.Version != "(devel)" {
				return d.Version
			}
		}
	}
	return "devel"
}

// operationAt returns the method and path of an operation whose path ends
// the base URL's path p, or "": a base URL that names an operation
// ("https://engine.tensorpool.dev/storage/attach") would send every call
// to a path that does not exist. A path with parameters counts only with
// two literal segments or more: a gateway's prefix ("/storage/eu") may
// look like "/storage/{storage_id}". The longest path wins, then the most
// literal one.
func operationAt(p string) string {
	got := strings.Split(strings.Trim(p, "/"), "/")
	best, most := "", 0
	for _, op := range operations.All() {
		want := strings.Split(strings.Trim(op.Path, "/"), "/")
		fits, literal := len(want) <= len(got) && want[0] != "", 0
		for i := 0; fits && i < len(want); i++ {
			g := got[len(got)-len(want)+i]
			if strings.Contains(want[i], "{") {
				fits = g != "" // a parameter's value
			} else {
				fits, literal = g == want[i], literal+1
			}
		}
		if score := len(want)*64 + literal; fits && literal >= min(2, len(want)) && score > most {
			best, most = op.Method+" "+op.Path, score
		}
	}
	return best
}
