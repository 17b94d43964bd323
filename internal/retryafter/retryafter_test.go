package retryafter

import (
	"net/http"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	local := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	server := local.Add(-time.Hour) // the client clock runs an hour ahead
	at := server.Add(90 * time.Second)
	for _, tc := range []struct {
		name, value, date string
		want              time.Duration
		ok                bool
	}{
		{"delta-seconds", "120", "", 120 * time.Second, true},
		{"multi-minute", "900", "", 15 * time.Minute, true},
		{"zero", "0", "", 0, true},
		{"leading zeros", "007", "", 7 * time.Second, true},
		{"decimal", "2.5", "", 2500 * time.Millisecond, true},
		{"decimal trailing dot", "3.", "", 3 * time.Second, true},
		{"decimal long fraction", "0.1234567891234", "", 123456789 * time.Nanosecond, true},
		{"surrounding space", "  5 ", "", 5 * time.Second, true},
		{"huge saturates", "99999999999999999999999", "", Max, true},
		{"just above int64 seconds", "9223372036", "", Max, true},
		{"IMF-fixdate vs Date", at.Format(http.TimeFormat), server.Format(http.TimeFormat), 90 * time.Second, true},
		{"RFC 850 vs Date", at.Format(time.RFC850), server.Format(http.TimeFormat), 90 * time.Second, true},
		{"asctime vs Date", at.Format(time.ANSIC), server.Format(http.TimeFormat), 90 * time.Second, true},
		{"date without Date header uses local clock", local.Add(30 * time.Second).Format(http.TimeFormat), "", 30 * time.Second, true},
		{"garbage Date header uses local clock", local.Add(30 * time.Second).Format(http.TimeFormat), "yesterday", 30 * time.Second, true},
		{"date in the past", server.Add(-time.Minute).Format(http.TimeFormat), server.Format(http.TimeFormat), 0, true},
		{"empty", "", "", 0, false},
		{"blank", "   ", "", 0, false},
		{"negative", "-5", "", 0, false},
		{"plus sign", "+5", "", 0, false},
		{"exponent", "1e3", "", 0, false},
		{"hex", "0x10", "", 0, false},
		{"two dots", "1.2.3", "", 0, false},
		{"leading dot", ".5", "", 0, false},
		{"unit", "5s", "", 0, false},
		{"garbage", "soon", "", 0, false},
		{"NaN", "NaN", "", 0, false},
		{"broken date", "Sun, 99 Nov 2026 08:00:00 GMT", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.value != "" {
				h.Set("Retry-After", tc.value)
			}
			if tc.date != "" {
				h.Set("Date", tc.date)
			}
			got, ok := Parse(h, local)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Parse(%q, Date %q) = %v, %v; want %v, %v", tc.value, tc.date, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestSeconds: package ratelimit calls Seconds on any field value, not only
// one that starts with a digit.
func TestSeconds(t *testing.T) {
	for _, tc := range []struct {
		v  string
		d  time.Duration
		ok bool
	}{
		{"1.5", 1500 * time.Millisecond, true}, {"2.", 2 * time.Second, true}, {"0", 0, true},
		{"", 0, false}, {".5", 0, false}, {"-1", 0, false}, {"1e3", 0, false}, {"1.2.3", 0, false}, {" 1", 0, false},
	} {
		if d, ok := Seconds(tc.v); d != tc.d || ok != tc.ok {
			t.Errorf("Seconds(%q) = %v, %v; want %v, %v", tc.v, d, ok, tc.d, tc.ok)
		}
	}
}

// TestParseSecondsAllocatesNothing: every poll reads a Retry-After.
func TestParseSecondsAllocatesNothing(t *testing.T) {
	h := http.Header{"Retry-After": {"2.5"}}
	if n := testing.AllocsPerRun(100, func() { Parse(h, time.Time{}) }); n != 0 {
		t.Errorf("Parse(\"2.5\"): %v allocations, want 0", n)
	}
}

func FuzzParse(f *testing.F) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	for _, s := range []string{"0", "5", "2.5", "-1", "", "soon", "99999999999999999999",
		now.Add(time.Minute).Format(http.TimeFormat), now.Format(time.RFC850), now.Format(time.ANSIC)} {
		f.Add(s, now.Format(http.TimeFormat))
	}
	f.Fuzz(func(t *testing.T, value, date string) {
		d, ok := Parse(http.Header{"Retry-After": {value}, "Date": {date}}, now)
		if d < 0 {
			t.Fatalf("negative delay %v for %q", d, value)
		}
		if !ok && d != 0 {
			t.Fatalf("unusable value %q gave %v", value, d)
		}
	})
}
