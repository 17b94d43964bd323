package tensorpooltest

import (
	"cmp"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// An Option configures an Engine. A value out of an option's range makes
// New panic, naming the option: such a value is a bug in the test.
type Option func(*config)

// config is what the options set; the Engine embeds it.
type config struct {
	document    []byte
	apiKey      string
	lifecycle   Lifecycle
	retryAfter  time.Duration // changed by SetRetryAfter, under the engine's mutex
	raForm      RetryAfterForm
	onViolation func(Violation)
	err         error // the first value out of range
}

// fail records why an option's value is out of range, for New.
func (c *config) fail(format string, args ...any) {
	c.err = cmp.Or(c.err, fmt.Errorf("tensorpooltest: "+format, args...))
}

// WithAPIKey sets the API key the engine accepts as "Authorization: Bearer
// <key>". The default is DefaultAPIKey. New panics on a key no client
// could send: empty (a bare "Bearer" would then pass), with surrounding
// blanks (net/http trims them) or with control characters. The panic
// message never contains the key.
func WithAPIKey(key string) Option {
	return func(c *config) {
		if key == "" || strings.TrimSpace(key) != key || strings.ContainsFunc(key, unicode.IsControl) {
			c.fail("WithAPIKey: the key is empty, has surrounding blanks or control characters")
			return
		}
		c.apiKey = key
	}
}

// WithLifecycle sets the lifecycle of asynchronous requests that have none
// queued with QueueLifecycles. The default is DefaultLifecycle. New keeps a
// copy of l.
func WithLifecycle(l Lifecycle) Option { return func(c *config) { c.lifecycle = l } }

// WithRetryAfter sets the Retry-After header GET /request/info sends while a
// request is not terminal: the delay, and its form (see RetryAfterForm).
// The delay is rounded up to whole seconds. As an HTTP-date, it counts from
// the answer's Date header. The default is 2 seconds, in seconds.
//
// Guess: the seeds give no value; 2 seconds is the official CLI's fallback
// when the header is absent.
//
// New panics on a negative d or an unknown form.
func WithRetryAfter(d time.Duration, form RetryAfterForm) Option {
	return func(c *config) {
		if why := checkRetryAfter(d, form); why != "" {
			c.fail("WithRetryAfter: %s", why)
			return
		}
		c.retryAfter, c.raForm = d, form
	}
}

// checkRetryAfter returns why d and form cannot be a Retry-After, or "".
func checkRetryAfter(d time.Duration, form RetryAfterForm) string {
	switch {
	case d < 0:
		return fmt.Sprintf("negative delay %v", d)
	case form < RetryAfterSeconds || form > RetryAfterOmitted:
		return fmt.Sprintf("unknown RetryAfterForm %d", form)
	}
	return ""
}

// WithViolationHandler sets a function that receives every response that
// does not conform to the OpenAPI document. NewServer wires it to t.Errorf.
// Violations are also kept (see Violations). f runs in the goroutine that
// sent the request, so it may be called concurrently.
func WithViolationHandler(f func(Violation)) Option {
	return func(c *config) { c.onViolation = f }
}

// WithSpec replaces the vendored openapi.json with another OpenAPI document
// (3.0 or 3.1, JSON or YAML), for example a newer upstream one: its
// operations the engine does not model answer as it says. New panics if the
// document does not load, or if an operation the engine models is invalid
// but for its examples and defaults; what is wrong elsewhere, and those,
// is tolerated and reported (Engine.SpecProblems).
func WithSpec(openAPIDocument []byte) Option {
	return func(c *config) { c.document = openAPIDocument }
}

// RetryAfterForm is how the engine writes a Retry-After header.
type RetryAfterForm int

const (
	// RetryAfterSeconds writes a number of seconds, as the spec declares.
	RetryAfterSeconds RetryAfterForm = iota
	// RetryAfterHTTPDate writes an HTTP-date (RFC 9110 section 10.2.3), which
	// the spec does not declare but real servers and proxies may send.
	RetryAfterHTTPDate
	// RetryAfterOmitted sends no Retry-After at all, against the seed ("the
	// response includes a Retry-After header"), to test a client's fallback.
	RetryAfterOmitted
)
