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
// https, or http to a loopback host, unless WithInsecureHTTP is also given.
// A loopback host is an IP literal in 127.0.0.0/8 or ::1, or exactly
// "localhost", which the system resolver (/etc/hosts) maps to loopback and
// net/http never proxies; "*.localhost" and "LOCALHOST" are not.
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

// WithHTTPClient makes the client send requests through a copy of hc: its
// Transport (http.DefaultTransport if nil) carries them, beneath the step
// that adds the key; its Jar is kept; its CheckRedirect decides the
// redirects of a GET or HEAD (a request of any other method never follows
// one); its Timeout, unless zero, bounds each call as a whole in place of
// DefaultTimeout (WithTimeout overrides it). NewClient never modifies hc.
//
// To bound each attempt rather than the whole call, set timeouts on the
// transport, such as http.Transport.ResponseHeaderTimeout: a GET that times
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
// retries, and reading the response body. The default is DefaultTimeout; 0
// means no limit (the context still applies). Retries never start a wait that
// would end after the deadline of the call or of its context.
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("tensorpool: negative timeout %v", d)
		}
		c.timeout, c.timeoutSet = d, true
		return nil
	}
}

// WithRetryPolicy replaces the retry policy (DefaultRetryPolicy): how often
// and how long. What is retried is fixed (see the package documentation).
// A policy with MaxRetries 0 disables retries.
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
// duration) and every retry (at slog.LevelInfo: reason and delay). Headers
// and bodies are never logged, and the API key is redacted from every
// attribute. Without it, nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// WithMaxResponseBytes caps the size of a response body (default
// DefaultMaxResponseBytes). A 2xx body past the cap fails with a
// *ResponseTooLargeError (errors.Is ErrResponseTooLarge), never silently
// truncated; the body of any other status is cut at the cap and Check
// reports its *APIError with Truncated set.
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
// library's own User-Agent token. A product with control characters, which
// no HTTP header can carry, makes NewClient fail.
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
// returning an error) every request before it is sent. It sees the request
// without the Authorization header, which is added afterwards (replacing
// any an editor set) for the base URL's origin only.
func WithRequestEditorFn(fn gen.RequestEditorFn) Option {
	return func(c *config) error {
		c.editors = append(c.editors, gen.WithRequestEditorFn(fn))
		return nil
	}
}

// WithoutClientValidation turns off the checks NewClient adds before
// sending a request: storage_id must start with "s-" and cluster_ids have
// exactly one element (see InvalidRequestError), for example to exercise a
// server's own validation.
func WithoutClientValidation() Option {
	return func(c *config) error {
		c.noValidation = true
		return nil
	}
}
