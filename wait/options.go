package wait

import "time"

// Defaults; the package documentation explains each.
const (
	DefaultMinInterval   = time.Second
	DefaultMaxInterval   = 10 * time.Minute
	DefaultMaxFailures   = 5
	DefaultNotFoundGrace = 10 * time.Second
	DefaultConcurrency   = 8
)

const (
	noHint     = 2 * time.Second  // after an answer without Retry-After: the tp CLI's interval
	maxBackoff = 30 * time.Second // caps the backoff after failures without Retry-After
	jitter     = 0.25             // the largest fraction added (never subtracted) to a delay
)

// An Option configures a Poller.
type Option func(*config)

type config struct {
	minInterval, maxInterval time.Duration
	maxFailures              int
	notFoundGrace            time.Duration
	concurrency              int
	unknownRunning, failFast bool
	progress                 func(Update)
}

// WithInterval bounds the time between two polls of one request (default
// 1 s to 10 min). A Retry-After below lo, 0 and dates in the past included,
// is raised to lo; one above hi is clamped to hi: the one case in which a
// poll comes earlier than the server asked, and Update.Reason says so. The
// delays chosen without a Retry-After (2 s after an answer, a backoff from
// lo up to 30 s after failures) stay within the bounds too. A bound <= 0
// keeps its default; hi below lo is raised to lo.
func WithInterval(lo, hi time.Duration) Option {
	return func(c *config) {
		if lo > 0 {
			c.minInterval = lo
		}
		if hi > 0 {
			c.maxInterval = hi
		}
	}
}

// WithProgress calls f after every poll, and once more when ctx (or
// WithFailFast) ends a wait between polls (see Update). One Poller's calls
// are serialized, under its lock: f need not be safe for concurrent use,
// should return quickly, and must not call the same Poller (that
// deadlocks).
func WithProgress(f func(Update)) Option {
	return func(c *config) { c.progress = f }
}

// WithMaxFailures sets how many consecutive transient failures end a wait
// with a *TransientError (default 5: the 5th failure in a row is returned).
// Any successful poll resets the count. n < 1 is ignored.
func WithMaxFailures(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxFailures = n
		}
	}
}

// WithNotFoundGrace sets how long after the first poll a 404 is still taken
// for "not visible yet" and polled again (default 10 s). Once the grace has
// passed, or after the request has been seen once, 404 fails the wait.
// d < 0 is ignored; 0 disables the grace.
func WithNotFoundGrace(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.notFoundGrace = d
		}
	}
}

// WithUnknownStatusAsRunning treats a status outside the spec's enum as
// still running instead of ending the wait with ErrUnknownStatus: for a
// server that may grow new statuses first. The wait then relies on ctx.
func WithUnknownStatusAsRunning() Option {
	return func(c *config) { c.unknownRunning = true }
}

// WithFailFast makes WaitAll stop waiting for the others as soon as one
// wait fails (ctx ending is not such a failure): their polls in flight are
// cancelled, and each gets an error wrapping ErrStopped.
func WithFailFast() Option {
	return func(c *config) { c.failFast = true }
}

// WithConcurrency bounds the poll requests one Poller has in flight at once,
// across all its Wait, WaitAll and Step calls (default 8). Waiting between
// polls does not count. n < 1 is ignored.
func WithConcurrency(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.concurrency = n
		}
	}
}

// delay is the delay before the next poll, before jitter, and why: the
// server's hint within the interval bounds; without one, the backoff after
// n failures in a row or, with none, the CLI's 2 s. No value overflows.
func (c *config) delay(hint time.Duration, hasHint bool, n int) (time.Duration, Reason) {
	switch {
	case hasHint && hint > c.maxInterval:
		return c.maxInterval, ReasonClamped
	case hasHint && hint < c.minInterval:
		return c.minInterval, ReasonRaised
	case hasHint:
		return hint, ReasonRetryAfter
	case n == 0:
		return min(max(noHint, c.minInterval), c.maxInterval), ReasonBackoff
	}
	d := c.minInterval
	for ; n > 1 && d < maxBackoff; n-- {
		d *= 2 // d < 30 s: cannot overflow
	}
	return min(d, max(maxBackoff, c.minInterval), c.maxInterval), ReasonBackoff
}
