// Package retryafter interprets the Retry-After response header (RFC 9110
// §10.2.3). The transport of package tensorpool and package wait share it, so
// that both read the same header the same way.
package retryafter

import (
	"net/http"
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
	if v == "" {
		return 0, false
	}
	if c := v[0]; c >= '0' && c <= '9' {
		return deltaSeconds(v)
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		now = date
	}
	d = at.Sub(now) // saturates rather than overflowing
	if d < 0 {
		d = 0
	}
	return d, true
}

// deltaSeconds parses 1*DIGIT [ "." *DIGIT ] into a duration, saturating
// at Max. Signs, exponents and anything else are rejected.
func deltaSeconds(v string) (time.Duration, bool) {
	intPart, frac, hasDot := strings.Cut(v, ".")
	if intPart == "" || !allDigits(intPart) || (hasDot && !allDigits(frac)) {
		return 0, false
	}
	intPart = strings.TrimLeft(intPart, "0")
	if len(intPart) > 10 { // more than 9,999,999,999 s: beyond any clamp
		return Max, true
	}
	var secs int64
	for _, c := range intPart {
		secs = secs*10 + int64(c-'0')
	}
	if secs > int64(Max/time.Second)-1 {
		return Max, true
	}
	d := time.Duration(secs) * time.Second
	// Nanosecond precision is plenty; further digits are ignored.
	scale := time.Duration(time.Second / 10)
	for i := 0; i < len(frac) && scale > 0; i++ {
		d += time.Duration(frac[i]-'0') * scale
		scale /= 10
	}
	return d, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
