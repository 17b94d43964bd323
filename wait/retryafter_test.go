package wait

import (
	"cmp"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/retryafter"
)

// FuzzRetryAfter: whatever Retry-After and Date a server sends, and whatever
// interval bounds a caller sets (the third int64 of the corpus is no longer
// used), the schedule stays within [min, max],
// never polls earlier than a hint within bounds, and backoff never shrinks.
func FuzzRetryAfter(f *testing.F) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	for _, s := range []string{"0", "5", "2.5", "-1", "", "soon", "99999999999999999999",
		now.Add(time.Minute).Format(http.TimeFormat), now.Format(time.RFC850), now.Format(time.ANSIC)} {
		f.Add(s, now.Format(http.TimeFormat), int64(0), int64(0), int64(0), uint8(0))
	}
	f.Add("9223372035", "", int64(0), int64(math.MaxInt64), int64(0), uint8(1))
	f.Add("", "", int64(1), int64(math.MaxInt64), int64(math.MaxInt64), uint8(255))
	f.Fuzz(func(t *testing.T, value, date string, minNs, maxNs, _ int64, steps uint8) {
		h := http.Header{"Retry-After": {value}, "Date": {date}}
		d, ok := retryafter.Parse(h, now)
		if d < 0 {
			t.Fatalf("negative delay %v for %q", d, value)
		}
		if !ok && d != 0 {
			t.Fatalf("unusable value %q gave %v", value, d)
		}
		lo, hi := time.Duration(max(minNs, 0)), time.Duration(max(maxNs, 0)) // bounds New takes (see FuzzResponse for the others)
		if hi != 0 && hi < cmp.Or(lo, DefaultMinInterval) {
			hi = 0
		}
		p := New(nil, WithInterval(lo, hi))
		p.rand = func() float64 { return 0.999999 }
		lo, hi = p.cfg.minInterval, p.cfg.maxInterval
		s := &Step{}
		p.schedule(s, answer{hint: d, hasHint: ok})
		if s.Next < lo || s.Next > hi || s.Next < s.floor {
			t.Fatalf("delay %v outside [%v, %v] (floor %v) for %q", s.Next, lo, hi, s.floor, value)
		}
		if ok && d <= hi && s.Next < d {
			t.Fatalf("delay %v earlier than the server's %v for %q", s.Next, d, value)
		}
		// Backoff: within bounds and never shrinking, however many steps.
		prev := time.Duration(0)
		for i := 0; i <= int(steps); i++ {
			s.Failures = i + 1
			p.schedule(s, answer{})
			if s.Next < lo || s.Next > hi || s.Next < prev {
				t.Fatalf("backoff step %d: %v after %v, outside [%v, %v]", i, s.Next, prev, lo, hi)
			}
			prev = s.Next
		}
	})
}
