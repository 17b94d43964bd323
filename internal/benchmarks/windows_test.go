package benchmarks

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// windowLimiter is, in virtual time, the limiter of a FastAPI service that
// limits its rate with slowapi over the limits library, as Debian's
// python3-limits 2.8.0 runs it (MemoryStorage); testdata/slowapi_peer.py
// is the same service for real, and make check-peers runs it.
//
// The windows are limits' (limits/strategies.py, limits/storage/memory.py,
// release 2.8.0):
//   - a fixed window (FixedWindowRateLimiter.hit, MemoryStorage.incr) opens
//     at the first hit after the last one expired and lasts the window; every
//     hit counts, a refused one too, and a hit is accepted while the count is
//     at most the amount;
//   - a moving window (MovingWindowRateLimiter.hit,
//     MemoryStorage.acquire_entry) refuses a hit while the amount-th newest
//     accepted hit is at most a window old; a refused hit is not recorded.
//
// The answers are slowapi's (slowapi/extension.py):
//   - a refusal is _rate_limit_exceeded_handler's 429, {"error": "Rate limit
//     exceeded: 2 per 1 second"}, with no Retry-After and no other field;
//   - with headers (Limiter(headers_enabled=True)), _inject_headers adds to
//     every answer X-RateLimit-Limit (the amount), X-RateLimit-Remaining and
//     X-RateLimit-Reset, 1 + get_window_stats' reset time (limits 2.8.0
//     truncates it to whole seconds: MemoryStorage.get_expiry, and
//     get_moving_window, which returns the newest hit still in the window);
//     and Retry-After: int(reset - now), where reset is the later of that
//     and the handler's own Retry-After (_determine_retry_time: int(now + its
//     seconds)).
//
// The limit is per API key: every Poller of a key shares it.
type windowLimiter struct {
	next    http.RoundTripper
	moving  bool
	amount  int
	window  time.Duration // whole seconds, as limits' granularities
	headers bool

	mu   sync.Mutex
	keys map[string]*windowKey
}

type windowKey struct {
	count  int         // fixed: MemoryStorage.storage[key]
	expiry time.Time   // fixed: MemoryStorage.expirations[key]
	hits   []time.Time // moving: MemoryStorage.events[key], newest first, at most amount
}

// hit is limits' hit: whether the request at now is accepted.
func (l *windowLimiter) hit(k *windowKey, now time.Time) bool {
	if !l.moving {
		if !k.expiry.After(now) { // MemoryStorage.get: an expired key is dropped
			k.count = 0
		}
		if k.count++; k.count == 1 {
			k.expiry = now.Add(l.window)
		}
		return k.count <= l.amount
	}
	if len(k.hits) == l.amount && !k.hits[l.amount-1].Before(now.Add(-l.window)) {
		return false
	}
	k.hits = append([]time.Time{now}, k.hits[:min(len(k.hits), l.amount-1)]...)
	return true
}

// stats is limits' get_window_stats, as 2.8.0 computes it: the reset time
// in whole seconds, and what remains.
func (l *windowLimiter) stats(k *windowKey, now time.Time) (reset int64, remaining int) {
	if !l.moving {
		if !k.expiry.After(now) {
			return now.Unix(), l.amount
		}
		return k.expiry.Unix(), max(0, l.amount-k.count)
	}
	in := 0
	newest := now
	for _, h := range k.hits {
		if !h.Before(now.Add(-l.window)) {
			if in == 0 {
				newest = h
			}
			in++
		}
	}
	return newest.Unix() + int64(l.window/time.Second), l.amount - in
}

// inject is slowapi's _inject_headers.
func (l *windowLimiter) inject(h http.Header, k *windowKey, now time.Time) {
	reset, remaining := l.stats(k, now)
	resetIn := 1 + reset
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.amount))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(resetIn, 10))
	t := float64(now.UnixNano()) / 1e9
	at := float64(resetIn)
	if ra, err := strconv.Atoi(h.Get("Retry-After")); err == nil {
		at = max(at, math.Trunc(t+float64(ra)))
	}
	h.Set("Retry-After", strconv.Itoa(int(at-t)))
}

// describe is limits' RateLimitItem.__repr__, as slowapi's 429 states it.
func (l *windowLimiter) describe() string {
	if l.window%time.Minute == 0 {
		return fmt.Sprintf("%d per %d minute", l.amount, l.window/time.Minute)
	}
	return fmt.Sprintf("%d per %d second", l.amount, l.window/time.Second)
}

func (l *windowLimiter) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(rlRTT / 2)
	now := time.Now()
	key := r.Header.Get("Authorization")
	l.mu.Lock()
	k := l.keys[key]
	if k == nil {
		k = &windowKey{}
		l.keys[key] = k
	}
	ok := l.hit(k, now)
	l.mu.Unlock()
	if !ok {
		h := http.Header{"Content-Type": {"application/json"}, "Date": {now.UTC().Format(http.TimeFormat)}}
		if l.headers {
			l.mu.Lock()
			l.inject(h, k, now)
			l.mu.Unlock()
		}
		time.Sleep(rlRTT / 2)
		return respond(r, http.StatusTooManyRequests, h, fmt.Appendf(nil, `{"error":"Rate limit exceeded: %s"}`, l.describe())), nil
	}
	resp, err := l.next.RoundTrip(r)
	if err == nil && l.headers {
		l.mu.Lock()
		l.inject(resp.Header, k, time.Now())
		l.mu.Unlock()
	}
	time.Sleep(rlRTT / 2)
	return resp, err
}

// The scale grid (issue 44): every limiter at every limit from 10 a minute
// to 200 a second, one Poller, 20 × the limit's rate in ids (rounded up),
// PENDING for at least 10 of its windows; without headers, and with
// slowapi's at 10 a minute, 2 and 50 a second.
var (
	gridLimits = []rlCase{{capacity: 10, window: time.Minute}, {capacity: 60, window: time.Minute}, {capacity: 1}, {capacity: 2},
		{capacity: 5}, {capacity: 10}, {capacity: 50}, {capacity: 200}}
	gridLimiters = []string{"fixed window", "moving window", ""}
)

// gridCases is the grid: the cases without headers, then those with.
func gridCases() []rlCase {
	var out []rlCase
	for _, headers := range []bool{false, true} {
		for _, lim := range gridLimiters {
			for _, c := range gridLimits {
				if headers && (lim == "" || c.capacity == 60 || c.capacity == 1 || c.capacity == 5 || c.capacity == 10 && c.window == 0 || c.capacity == 200) ||
					lim != "" && c.capacity == 200 {
					continue
				}
				c.limiter, c.headers, c.pollers = lim, headers, 1
				c.ids = int(math.Ceil(20 * c.rate()))
				out = append(out, c)
			}
		}
	}
	return out
}

// pending is how long each id of c stays PENDING: rlPending, or 10 windows.
func (c rlCase) pending() time.Duration { return max(*rlPending, 10*c.per()) }

// name names c's limiter and limit.
func (c rlCase) name() string {
	lim, unit := cmp.Or(c.limiter, "token bucket"), "s"
	if c.window == time.Minute {
		unit = "min"
	}
	if c.headers {
		lim += ", slowapi's headers"
	}
	return fmt.Sprintf("%s, %d/%s", lim, c.capacity, unit)
}

// gridRuns is how many times measureGrid runs each case: a cell shows the
// worst of them (jitter differs from run to run).
const gridRuns = 3

// measureGrid runs the grid in virtual time, gridRuns times a case, and
// returns the worst figures of each.
func measureGrid(t *testing.T) []rlSummary {
	var out []rlSummary
	for _, c := range gridCases() {
		var w rlSummary
		for i := range gridRuns {
			s := rlSum(runBucket(t, c, c.pending()))
			if i == 0 {
				w = s
				continue
			}
			w.Completed, w.GaveUp, w.Early = min(w.Completed, s.Completed), max(w.GaveUp, s.GaveUp), max(w.Early, s.Early)
			w.Refused, w.Settled, w.Used, w.Done = max(w.Refused, s.Refused), max(w.Settled, s.Settled), min(w.Used, s.Used), max(w.Done, s.Done)
		}
		out = append(out, w)
	}
	return out
}
