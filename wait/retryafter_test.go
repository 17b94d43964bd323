package wait

import (
	"net/http"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/retryafter"
)

// FuzzRetryAfter: whatever Retry-After and Date a server sends, the schedule
// stays within [min, max] and never polls earlier than a hint within bounds.
func FuzzRetryAfter(f *testing.F) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	for _, s := range []string{"0", "5", "2.5", "-1", "", "soon", "99999999999999999999",
		now.Add(time.Minute).Format(http.TimeFormat), now.Format(time.RFC850), now.Format(time.ANSIC)} {
		f.Add(s, now.Format(http.TimeFormat))
	}
	f.Fuzz(func(t *testing.T, value, date string) {
		h := http.Header{"Retry-After": {value}, "Date": {date}}
		d, ok := retryafter.Parse(h, now)
		if d < 0 {
			t.Fatalf("negative delay %v for %q", d, value)
		}
		if !ok && d != 0 {
			t.Fatalf("unusable value %q gave %v", value, d)
		}
		// Whatever the server sends, the schedule stays within bounds.
		p := New(nil)
		p.rand = func() float64 { return 0.999999 }
		s := &Step{}
		p.schedule(s, d, ok)
		if s.Next < p.cfg.minInterval || s.Next > p.cfg.maxInterval {
			t.Fatalf("delay %v outside [%v, %v] for %q", s.Next, p.cfg.minInterval, p.cfg.maxInterval, value)
		}
		if ok && d <= p.cfg.maxInterval && s.Next < d {
			t.Fatalf("delay %v earlier than the server's %v for %q", s.Next, d, value)
		}
	})
}
