// Package ratelimit reads what a server says about its rate limit in the
// response headers, in three dialects:
//
//   - draft-ietf-httpapi-ratelimit-headers-10: the structured fields
//     RateLimit-Policy: "default";q=100;w=60 and RateLimit: "default";r=50;t=30;
//   - its older drafts: RateLimit-Limit: 100, 100;w=60, RateLimit-Remaining
//     and RateLimit-Reset (delay-seconds), and RateLimit-Policy: 100;w=60;
//   - the common X-RateLimit-Limit, -Remaining and -Reset, whose reset is
//     a Unix time when it is past ten years of seconds: slowapi's (FastAPI's
//     usual limiter), one second after the window's end (_inject_headers:
//     reset_in = 1 + window_stats[0]), whole seconds with limits 2.8. The
//     limit is the quota of a window these fields do not name; the window
//     lasts at least as long as an answer says is left of it, in whole
//     seconds (limits' windows are), so the caller keeps the longest
//     (Limit.Window). With a limit, none remaining holds nothing: limits
//     2.8's moving window says so at its own pace, and its reset is when
//     the whole window has emptied (get_moving_window), not when a request
//     is next accepted. Without one, nothing goes before the window's end.
//
// A malformed field is ignored, as the draft asks. The structured fields are
// parsed by github.com/dunglas/httpsfv (RFC 9651, tested against the HTTP
// WG's own test suite).
package ratelimit

import (
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/tensorpool/tensorpool-go/internal/retryafter"
)

// Limit is what one response says.
type Limit struct {
	// Rate is the most requests a second the server allows: the smallest
	// quota ÷ window, and (remaining + 1) ÷ reset (what remains now, and at
	// least one more at the reset, which counts as 1 s if under it, the
	// fields' resolution), over the policies it states; 0 if it states none.
	Rate float64
	// Wait is how long until quota comes back, when a policy has none
	// remaining; 0 otherwise.
	Wait time.Duration
	// Quota and Window are X-RateLimit-Limit and, with a Unix-time reset,
	// the time left of its window, rounded up to whole seconds: the rate
	// is at most Quota over the longest Window seen.
	Quota   float64
	Window  time.Duration
	restate time.Duration // to a Unix-time X-RateLimit-Reset, if any
}

// Restates reports whether a Retry-After of d only restates an
// X-RateLimit-Reset, as slowapi's does on every answer (Retry-After:
// int(reset - now), or the handler's own if later): it is then the window's,
// not the request's.
func (l Limit) Restates(d time.Duration) bool {
	return l.restate > 0 && (d-l.restate).Abs() < time.Second
}

// unixAfter: a reset past this many seconds is a Unix time, not a delay.
const unixAfter = 10 * 365 * 24 * 60 * 60

// Parse reads h's rate-limit fields. A Unix-time reset is measured against
// now, or against h's Date when the two differ by more than ten minutes (a
// skewed clock): a Date may lag (uvicorn rewrites it on a timer, which fell
// a full minute behind under load in make check-peers).
func Parse(h http.Header, now time.Time) Limit {
	var l Limit
	// draft-10: policies name a quota per window; RateLimit, what remains.
	for _, m := range list(h["Ratelimit-Policy"]) {
		if m.q < 0 { // an older draft's policy: a bare quota
			m.q = m.num
		}
		l.rate(m.q, m.w)
	}
	for _, m := range list(h["Ratelimit"]) {
		l.remains(m.r, m.t)
	}
	// The older drafts: the limit, then its policies, each a quota with its window.
	for _, m := range list(h["Ratelimit-Limit"]) {
		l.rate(m.num, m.w)
	}
	l.remains(one(h["Ratelimit-Remaining"]), one(h["Ratelimit-Reset"]))
	// X-RateLimit-*: a reset past ten years of seconds is a Unix time, one
	// second after the window's end.
	rem := one(h["X-Ratelimit-Remaining"])
	if reset := one(h["X-Ratelimit-Reset"]); reset > unixAfter {
		if d, err := http.ParseTime(h.Get("Date")); err == nil && d.Sub(now).Abs() > 10*time.Minute {
			now = d
		}
		left := reset - float64(now.UnixNano())/1e9 // to the reset
		if q := one(h["X-Ratelimit-Limit"]); q > 0 && rem >= 0 {
			l.Quota, l.Window = q, time.Duration(max(math.Ceil(min(left-1, 1e6)), 1))*time.Second
		} else if rem == 0 { // no quota to pace by: nothing until the window's end
			l.Wait = max(l.Wait, time.Duration(min(max(left-1, 0), 1e6)*float64(time.Second)))
		}
		if left > 0 {
			l.restate = time.Duration(min(left, 1e6) * float64(time.Second))
		}
	} else {
		l.remains(rem, reset)
	}
	return l
}

// rate notes a quota per window (seconds), when both are known.
func (l *Limit) rate(quota, window float64) {
	if quota >= 0 && window > 0 && (l.Rate == 0 || quota/window < l.Rate) {
		l.Rate = max(quota/window, 1e-9) // a quota of 0 is the least rate, not "unsaid"
	}
}

// remains notes what remains until the reset (seconds), when both are
// known: that much now, and more at the reset.
func (l *Limit) remains(remaining, reset float64) {
	if remaining < 0 || reset < 0 {
		return
	}
	if remaining < 1 {
		l.Wait = max(l.Wait, time.Duration(min(reset, 1e6)*float64(time.Second)))
	}
	l.rate(remaining+1, max(reset, 1))
}

// member is one member of a structured-field List: its bare item when a
// number, and its parameters q, w (or an older draft's window), r and t;
// -1 where absent or not a non-negative number.
type member struct{ num, q, w, r, t float64 }

// one is the number a single-valued field holds (delta-seconds' syntax), or -1.
func one(vs []string) float64 {
	if len(vs) != 1 {
		return -1
	}
	d, ok := retryafter.Seconds(strings.TrimSpace(vs[0]))
	if !ok {
		return -1
	}
	return d.Seconds()
}

// list parses the lines of a structured-field List (RFC 9651 §4.2.1) with
// httpsfv; a malformed field yields none, as does an inner list.
func list(lines []string) []member {
	if len(lines) == 0 {
		return nil
	}
	l, err := httpsfv.UnmarshalList(lines)
	if err != nil {
		return nil
	}
	out := make([]member, 0, len(l))
	for _, m := range l {
		if it, ok := m.(httpsfv.Item); ok {
			w := param(it.Params, "w")
			if w < 0 {
				w = param(it.Params, "window")
			}
			out = append(out, member{bare(it.Value), param(it.Params, "q"), w, param(it.Params, "r"), param(it.Params, "t")})
		}
	}
	return out
}

// param is the parameter k when a non-negative number, or -1.
func param(p *httpsfv.Params, k string) float64 {
	v, _ := p.Get(k)
	return bare(v)
}

// bare is a bare item's value when a non-negative number, or -1.
func bare(v any) float64 {
	switch n := v.(type) {
	case int64:
		if n >= 0 {
			return float64(n)
		}
	case float64:
		if n >= 0 {
			return n
		}
	}
	return -1
}
