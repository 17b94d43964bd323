package wait

import "time"

// Defaults; the package documentation explains each.
const (
	DefaultMinInterval   = time.Second
	DefaultMaxInterval   = 10 * time.Minute
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxFailures   = 5
	DefaultNotFoundGrace = 10 * time.Second
	DefaultConcurrency   = 8

	// jitter is the largest fraction added to a delay. It is only ever
	// added, so a poll never comes earlier than the server asked.
	jitter = 0.25
)

// An Option configures a Poller.
type Option func(*config)

type config struct {
	minInterval, maxInterval, maxBackoff time.Duration
	maxFailures                          int
	notFoundGrace                        time.Duration
	concurrency                          int
	unknownRunning, failFast             bool
	progress                             func(Update)
}

// WithMinInterval sets the shortest time between two polls of one request
// (default 1 s). A Retry-After below it, including 0 and dates in the past, is
// raised to it. d <= 0 is ignored.
func WithMinInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.minInterval = d
		}
	}
}

// WithMaxInterval sets the longest time between two polls (default 10 min).
// A Retry-After above it is clamped to it; this is the one case in which a
// poll comes earlier than the server asked, and Update.Reason says so.
// d <= 0 is ignored; a value below the minimum interval is raised to it.
func WithMaxInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.maxInterval = d
		}
	}
}

// WithMaxBackoff sets the ceiling of the exponential backoff used when a
// response carries no usable Retry-After (default 30 s; never above the
// maximum interval). d <= 0 is ignored.
func WithMaxBackoff(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.maxBackoff = d
		}
	}
}

// WithProgress calls f after every poll, including the last, and once more
// when ctx (or WithFailFast) ends a wait between polls (see Update). Calls
// made by one Poller are serialized, so f need not be safe for concurrent
// use; f should return quickly, as polling waits for it. f runs under the
// Poller's lock: it must not call the same Poller's Wait, WaitAll or Step
// (that deadlocks); start a goroutine or use another Poller.
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
// for "not visible yet" and polled again with backoff (default 10 s). Once the
// grace has passed, or after the request has been seen once, 404 fails the
// wait. d < 0 is ignored; 0 disables the grace.
func WithNotFoundGrace(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.notFoundGrace = d
		}
	}
}

// WithUnknownStatusAsRunning treats a status outside the spec's enum as
// still running (reported through progress, polled again with the usual
// delays), instead of the default: ending the wait with ErrUnknownStatus.
// Use it if the server may grow new non-terminal statuses before this
// module is updated; the wait then relies on ctx to end.
func WithUnknownStatusAsRunning() Option {
	return func(c *config) { c.unknownRunning = true }
}

// WithFailFast makes WaitAll stop waiting for the other requests as soon as
// one wait fails (ctx ending is not such a failure): their polls in flight
// are cancelled, and each gets an error wrapping ErrStopped, naming it and
// its last status. By default every request is waited for.
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
