package tensorpool

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// Option configures NewClient.
type Option func(*config) error

// config is everything NewClient was told.
type config struct {
	key          string
	keySet       bool
	baseURL      string
	baseURLSet   bool
	httpClient   *http.Client
	timeout      time.Duration
	timeoutSet   bool
	retry        RetryPolicy
	logger       *slog.Logger
	maxBody      int64
	insecureHTTP bool
	userAgent    string
	noValidation bool
	editors      []gen.ClientOption
}

// WithAPIKey sets the API key, sent as "Authorization: Bearer <key>". It
// takes precedence over the TENSORPOOL_KEY environment variable. Surrounding
// white space is trimmed; an empty key makes NewClient fail with ErrNoAPIKey.
func WithAPIKey(key string) Option {
	return func(c *config) error {
		c.key, c.keySet = strings.TrimSpace(key), true
		return nil
	}
}

// WithBaseURL sets the API's base URL, taking precedence over the
// TENSORPOOL_ENGINE environment variable and DefaultBaseURL. It must be
// https, unless WithInsecureHTTP is given or the host is a loopback IP
// literal or exactly "localhost" (which net/http never proxies).
func WithBaseURL(u string) Option {
	return func(c *config) error {
		c.baseURL, c.baseURLSet = u, true
		return nil
	}
}

// WithInsecureHTTP allows a plain http:// base URL to a host that is not a
// loopback address. The API key then travels in clear text: use it only on a
// network you trust.
func WithInsecureHTTP() Option {
	return func(c *config) error {
		c.insecureHTTP = true
		return nil
	}
}

// WithHTTPClient sends requests through a copy of hc (never modified): its
// Transport (http.DefaultTransport if nil) beneath the step that adds the
// key, its Jar, its CheckRedirect for the redirects of a GET or HEAD, and
// its Timeout, unless zero, for each call as a whole (WithTimeout
// overrides it). To bound each attempt instead, set the transport's
// timeouts, such as http.Transport.ResponseHeaderTimeout: a GET that times
// out there is retried, a POST is not.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("tensorpool: WithHTTPClient(nil)")
		}
		c.httpClient = hc
		return nil
	}
}

// WithTimeout bounds each call as a whole: every attempt, the waits between
// them and reading the body (default DefaultTimeout; 0: only the context).
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("tensorpool: negative timeout %v", d)
		}
		c.timeout, c.timeoutSet = d, true
		return nil
	}
}

// WithRetryPolicy replaces DefaultRetryPolicy: how often and how long. What
// is retried is fixed (see the package documentation).
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *config) error {
		if err := p.validate(); err != nil {
			return err
		}
		c.retry = p
		return nil
	}
}

// WithLogger logs every attempt (at slog.LevelDebug: method, URL, status,
// duration) and every retry (at slog.LevelInfo: reason and delay); never a
// header, a body or the key.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// WithMaxResponseBytes caps a response body (default
// DefaultMaxResponseBytes), which the client reads into memory. A 2xx body
// past it is a *ResponseTooLargeError; any other is cut, and Check reports
// its *APIError with Truncated set.
func WithMaxResponseBytes(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("tensorpool: max response bytes must be positive, got %d", n)
		}
		c.maxBody = n
		return nil
	}
}

// WithUserAgent puts product (for example "my-app/1.2") in front of this
// library's User-Agent. One with control characters makes NewClient fail.
func WithUserAgent(product string) Option {
	return func(c *config) error {
		if !validHeaderValue(product) {
			return errors.New("tensorpool: WithUserAgent: the product contains control characters") // not quoted: it could hold a secret
		}
		c.userAgent = product
		return nil
	}
}

// WithRequestEditorFn adds a function that may change (or refuse, by
// returning an error) every request before it is sent. The Authorization
// header is set afterwards, replacing any an editor set.
func WithRequestEditorFn(fn gen.RequestEditorFn) Option {
	return func(c *config) error {
		c.editors = append(c.editors, gen.WithRequestEditorFn(fn))
		return nil
	}
}

// WithoutClientValidation turns off the spec's rules checked before
// sending (storage_id starts with "s-", cluster_ids has one element), for
// example to exercise a server's own validation. Headers are still checked.
func WithoutClientValidation() Option {
	return func(c *config) error {
		c.noValidation = true
		return nil
	}
}
