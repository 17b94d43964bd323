// Package retryafter interprets the Retry-After response header (RFC 9110
// §10.2.3). The transport of package tensorpool and package wait share it, so
// that both read the same header the same way.
package retryafter

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Max is what an absurdly large Retry-After becomes; callers clamp it to
// their own maximum. It keeps their arithmetic clear of overflow.
const Max time.Duration = 1<<63 - 1

// Parse interprets the Retry-After header of h.
//
// It accepts delta-seconds (with a tolerated fraction, "2.5") and the three
// HTTP-date forms (IMF-fixdate, RFC 850, asctime). A date is measured against
// the response's own Date header when that parses, so a skewed client clock
// does not shorten or stretch the wait; otherwise against now. A date in the
// past means "now" (0). Empty, negative or unparseable values report ok ==
// false: the caller falls back to backoff, never to an error.
func Parse(h http.Header, now time.Time) (d time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		return Seconds(v)
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		now = date
	}
	return max(at.Sub(now), 0), true // Sub saturates rather than overflowing
}

// Seconds parses delta-seconds, 1*DIGIT [ "." *DIGIT ], ignoring digits
// past the nanosecond and saturating at Max from 9,223,372,036 s on (where a
// fraction could overflow); package ratelimit reads its fields with it too.
// It allocates nothing.
func Seconds(v string) (time.Duration, bool) {
	secs, frac, _ := strings.Cut(v, ".")
	if secs == "" || strings.Trim(secs, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return 0, false // a sign, an exponent, a unit, a second dot
	}
	n, err := strconv.ParseUint(secs, 10, 64)
	ns, _ := strconv.ParseUint((frac + "000000000")[:9], 10, 64)
	if err != nil || n >= uint64(Max/time.Second) {
		return Max, true
	}
	return time.Duration(n)*time.Second + time.Duration(ns), true
}
