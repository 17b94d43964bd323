package wait

import (
	"cmp"
	"fmt"
	"time"
)

// Defaults; the package documentation explains each.
const (
	DefaultMinInterval   = time.Second
	DefaultMaxInterval   = 10 * time.Minute
	DefaultMaxFailures   = 5
	DefaultNotFoundGrace = 10 * time.Second
	DefaultConcurrency   = 8

	noHint       = 2 * time.Second  // after an answer without Retry-After: the tp CLI's interval
	maxBackoff   = 30 * time.Second // caps the backoff after failures without Retry-After
	jitter       = 0.25             // the largest fraction added (never subtracted) to a delay
	maxErrorBody = 16 << 10         // caps what is read of an error answer's body
)

// An Option configures a Poller. A value out of an option's range makes
// New panic, naming the option: such a value is a bug in the calling code.
type Option func(*config)

type config struct {
	minInterval, maxInterval, notFoundGrace time.Duration
	maxFailures, concurrency                int
	unknownRunning, failFast                bool
	progress                                func(Update)
	err                                     error // the first value out of range
}

// set stores v in *dst, or records in c.err that v is below lo, naming the option (what).
func set[T int | time.Duration](c *config, what string, dst *T, v, lo T) {
	if v < lo {
		c.err = cmp.Or(c.err, fmt.Errorf("wait: %s is %v, below the least it takes, %v", what, v, lo))
		return
	}
	*dst = v
}

// WithInterval bounds the time between two polls of one request (default 1 s to 10 min).
// A Retry-After below lo (0 and past dates too) is raised to lo. One above hi is clamped
// to hi, the one case of a poll earlier than the server asked, which Update.Reason says.
// A bound of 0 keeps its default; a default hi below lo is raised to lo. A bound below 0,
// or hi below lo, makes New panic.
func WithInterval(lo, hi time.Duration) Option {
	return func(c *config) {
		call := fmt.Sprintf("WithInterval(%v, %v)", lo, hi)
		set(c, call+": lo", &c.minInterval, cmp.Or(lo, c.minInterval), 1)
		set(c, call+": hi", &c.maxInterval, cmp.Or(hi, max(c.maxInterval, c.minInterval)), c.minInterval)
	}
}

// WithProgress calls f after every poll, and once more when ctx (or
// WithFailFast) ends a wait between polls. A Poller's calls are serialized:
// f should return quickly and must not call the same Poller (a deadlock).
func WithProgress(f func(Update)) Option { return func(c *config) { c.progress = f } }

// WithMaxFailures sets how many transient failures in a row end a wait with
// ErrTooManyFailures (default 5); a successful poll resets the count, and a
// 429 or a 503 is never counted. n < 1 makes New panic.
func WithMaxFailures(n int) Option {
	return func(c *config) { set(c, "WithMaxFailures(n)", &c.maxFailures, n, 1) }
}

// WithNotFoundGrace sets how long after the first poll a 404 still means
// "not visible yet" (default 10 s); after it, or once the request was seen,
// 404 fails the wait. 0 disables the grace; d < 0 makes New panic.
func WithNotFoundGrace(d time.Duration) Option {
	return func(c *config) { set(c, "WithNotFoundGrace(d)", &c.notFoundGrace, d, 0) }
}

// WithUnknownStatusAsRunning treats a status outside the spec's enum as
// still running instead of failing with ErrUnknownStatus, for a server that
// may grow new statuses first. The wait then relies on ctx.
func WithUnknownStatusAsRunning() Option { return func(c *config) { c.unknownRunning = true } }

// WithFailFast makes WaitAll stop waiting for the others as soon as one
// wait fails (ctx ending is not such a failure): their polls in flight are
// cancelled, and each gets an error wrapping ErrStopped.
func WithFailFast() Option { return func(c *config) { c.failFast = true } }

// WithConcurrency bounds the polls one Poller has in flight, across all its
// Wait, WaitAll and Step calls (default 8): at most n polls per round trip.
// n < 1 makes New panic.
func WithConcurrency(n int) Option {
	return func(c *config) { set(c, "WithConcurrency(n)", &c.concurrency, n, 1) }
}
