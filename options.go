package tensorpool

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/tensorpool/tensorpool-go/gen"
)

// Option configures NewClient.
type Option func(*config) error

// config is what NewClient was told. A ...Set field says that the option
// was given: it beats the environment or the HTTP client's Timeout.
type config struct {
	key, baseURL, userAgent        string
	keySet, baseURLSet, timeoutSet bool
	insecureHTTP, noValidation     bool
	httpClient                     *http.Client
	timeout                        time.Duration
	retry                          RetryPolicy
	logger                         *slog.Logger
	maxBody                        int64
	editors                        []gen.ClientOption
}

// set is an Option that cannot fail.
func set(f func(*config)) Option { return setIf(true, nil, f) }

// setIf is an Option that sets as f does if ok, else fails with err.
func setIf(ok bool, err error, f func(*config)) Option {
	return func(c *config) error {
		if !ok {
			return err
		}
		f(c)
		return nil
	}
}

// WithAPIKey sets the API key, sent as "Authorization: Bearer <key>",
// instead of $TENSORPOOL_KEY. Surrounding white space is trimmed; an empty
// key makes NewClient fail with ErrNoAPIKey, one shorter than 4 characters
// with another error.
func WithAPIKey(key string) Option {
	return set(func(c *config) { c.key, c.keySet = strings.TrimSpace(key), true })
}

// WithBaseURL sets the API's base URL instead of $TENSORPOOL_ENGINE or
// DefaultBaseURL. It must be https, unless WithInsecureHTTP is given or the
// host is a loopback IP literal or exactly "localhost".
func WithBaseURL(u string) Option {
	return set(func(c *config) { c.baseURL, c.baseURLSet = u, true })
}

// WithInsecureHTTP allows a plain http:// base URL to a host that is not a
// loopback address. The key then travels in clear text: use it only on a
// network you trust.
func WithInsecureHTTP() Option { return set(func(c *config) { c.insecureHTTP = true }) }

// WithHTTPClient sends requests through a copy of hc, which is never
// modified: its Transport, Jar, CheckRedirect (for a GET or HEAD) and
// Timeout, which bounds each call as a whole unless WithTimeout is given.
// To bound each attempt, set the transport's timeouts, such as
// ResponseHeaderTimeout: a GET that times out there is retried, a POST not.
func WithHTTPClient(hc *http.Client) Option {
	return setIf(hc != nil, errors.New("tensorpool: WithHTTPClient(nil)"), func(c *config) { c.httpClient = hc })
}

// WithTimeout bounds each call as a whole: every attempt, the waits between
// them and reading the body (default DefaultTimeout; 0: only the context).
func WithTimeout(d time.Duration) Option {
	return setIf(d >= 0, fmt.Errorf("tensorpool: negative timeout %v", d), func(c *config) { c.timeout, c.timeoutSet = d, true })
}

// WithRetryPolicy replaces DefaultRetryPolicy: how often and how long. What
// is retried is fixed (see the package documentation).
func WithRetryPolicy(p RetryPolicy) Option {
	err := p.validate()
	return setIf(err == nil, err, func(c *config) { c.retry = p })
}

// WithLogger logs every attempt (at slog.LevelDebug: operation, method,
// URL, status, duration) and every retry (at slog.LevelInfo: reason and
// delay); never a header, a body or the key. The operation is its path
// template, as "GET /request/info/{request_id}".
func WithLogger(l *slog.Logger) Option { return set(func(c *config) { c.logger = l }) }

// WithMaxResponseBytes caps a response body (default
// DefaultMaxResponseBytes), which the client reads into memory. A 2xx body
// past it is a *DecodeError wrapping ErrResponseTooLarge; any other is cut
// there, and Check reports its *APIError with Truncated set.
func WithMaxResponseBytes(n int64) Option {
	return setIf(n > 0, fmt.Errorf("tensorpool: max response bytes must be positive, got %d", n), func(c *config) { c.maxBody = n })
}

// WithUserAgent puts product (for example "my-app/1.2") in front of this
// library's User-Agent. NewClient refuses one with control characters,
// which no request could carry.
func WithUserAgent(product string) Option {
	return setIf(!strings.ContainsFunc(product, unicode.IsControl),
		errors.New("tensorpool: WithUserAgent: the product contains control characters"), func(c *config) { c.userAgent = product })
}

// WithRequestEditorFn adds a function that may change (or refuse, by
// returning an error) every request before it is sent. The Authorization
// header is set afterwards, replacing any an editor set.
func WithRequestEditorFn(fn gen.RequestEditorFn) Option {
	return set(func(c *config) { c.editors = append(c.editors, gen.WithRequestEditorFn(fn)) })
}

// WithoutClientValidation turns off the check of the constraints the spec
// states (cluster_ids has one element), to exercise the server's own.
func WithoutClientValidation() Option { return set(func(c *config) { c.noValidation = true }) }
