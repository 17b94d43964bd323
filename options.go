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

// config is everything NewClient was told. It holds the API key, so it
// prints redacted (see Format and LogValue).
type config struct {
	key           secret
	keySet        bool
	baseURL       string
	baseURLSet    bool
	httpClient    *http.Client
	timeout       time.Duration
	timeoutSet    bool
	retry         RetryPolicy
	logger        *slog.Logger
	maxBodyBytes  int64
	insecureHTTP  bool
	userAgent     string
	noValidation  bool
	editors       []gen.RequestEditorFn
	clientOptions []gen.ClientOption
}

func defaultConfig() config {
	return config{
		baseURL:      DefaultBaseURL,
		timeout:      DefaultTimeout,
		retry:        DefaultRetryPolicy(),
		maxBodyBytes: DefaultMaxResponseBytes,
	}
}

// Format implements fmt.Formatter: a config prints its settings with the key
// redacted, whatever the verb.
func (c config) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "tensorpool.config{key:%q baseURL:%q timeout:%v retry:%+v maxBodyBytes:%d insecureHTTP:%t userAgent:%q validation:%t editors:%d clientOptions:%d}",
		c.key.String(), c.baseURL, c.timeout, c.retry, c.maxBodyBytes, c.insecureHTTP, c.userAgent, !c.noValidation, len(c.editors), len(c.clientOptions))
}

// LogValue implements slog.LogValuer, with the key redacted.
func (c config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("key", c.key.String()),
		slog.String("base_url", c.baseURL),
		slog.Duration("timeout", c.timeout),
		slog.Int("max_retries", c.retry.MaxRetries),
	)
}

// WithAPIKey sets the API key, sent as "Authorization: Bearer <key>". It
// takes precedence over the TENSORPOOL_KEY environment variable. Surrounding
// white space is trimmed; an empty key makes NewClient fail with ErrNoAPIKey.
func WithAPIKey(key string) Option {
	return func(c *config) error {
		c.key, c.keySet = newSecret(strings.TrimSpace(key)), true
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
// Transport (http.DefaultTransport if nil) carries the requests, and its Jar
// and CheckRedirect are kept, and its Timeout unless zero (WithTimeout
// overrides it). NewClient never modifies hc itself. Authentication,
// retries, the body cap and logging are layered on top of hc.Transport.
//
// To bound each attempt rather than the whole call, set timeouts on the
// transport, such as http.Transport.ResponseHeaderTimeout: a GET that times
// out there is retried, a POST is not.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return fmt.Errorf("tensorpool: WithHTTPClient(nil)")
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

// WithRetryPolicy replaces the retry policy (DefaultRetryPolicy). What is
// retried is fixed (see the package documentation); the policy sets how often
// and how long.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *config) error {
		if err := p.validate(); err != nil {
			return err
		}
		c.retry = p
		return nil
	}
}

// WithMaxRetries sets how many times a request may be retried after its first
// attempt (default 3). 0 disables retries.
func WithMaxRetries(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("tensorpool: negative max retries %d", n)
		}
		c.retry.MaxRetries = n
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
		c.maxBodyBytes = n
		return nil
	}
}

// ErrInvalidUserAgent is returned by NewClient when WithUserAgent is given a
// value with control characters, which no HTTP header can carry.
var ErrInvalidUserAgent = errors.New("tensorpool: invalid user agent: it contains control characters")

// WithUserAgent puts product (for example "my-app/1.2") in front of this
// library's own User-Agent token. A product with control characters makes
// NewClient fail with ErrInvalidUserAgent.
func WithUserAgent(product string) Option {
	return func(c *config) error {
		if !validHeaderValue(product) {
			return ErrInvalidUserAgent // product not quoted: it could hold a secret
		}
		c.userAgent = product
		return nil
	}
}

// WithRequestEditorFn adds a function that may change (or refuse, by
// returning an error) every request before it is sent. It sees the request
// without the Authorization header, which the transport adds afterwards
// (replacing any an editor set) for the base URL's origin only.
func WithRequestEditorFn(fn gen.RequestEditorFn) Option {
	return func(c *config) error {
		c.editors = append(c.editors, fn)
		return nil
	}
}

// WithoutClientValidation turns off the checks NewClient adds before sending
// (see ValidateRequest), for example to exercise a server's own validation.
func WithoutClientValidation() Option {
	return func(c *config) error {
		c.noValidation = true
		return nil
	}
}

// WithClientOptions passes options through to gen.NewClientWithResponses.
// gen.WithBaseURL is honoured like WithBaseURL (the same https rule applies),
// gen.WithRequestEditorFn like WithRequestEditorFn. A gen.WithHTTPClient doer
// becomes the layer that carries requests, beneath authentication, retries,
// the body cap and logging, which it cannot remove. An *http.Client there
// gives its Transport (and Jar, CheckRedirect) and NewClient follows
// redirects; any other doer receives requests carrying the key, so it must
// not follow redirects itself: an answer from another origin than the one
// asked fails with ErrDoerRedirected.
func WithClientOptions(opts ...gen.ClientOption) Option {
	return func(c *config) error {
		c.clientOptions = append(c.clientOptions, opts...)
		return nil
	}
}
