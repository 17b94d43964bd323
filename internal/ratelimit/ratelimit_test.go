package ratelimit

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	server := now.Add(-time.Hour) // the client clock runs an hour ahead
	unix := func(d time.Duration) string { return strconv.FormatInt(server.Add(d).Unix(), 10) }
	for _, tc := range []struct {
		name   string
		h      http.Header
		rate   float64
		wait   time.Duration
		quota  float64
		window time.Duration
	}{
		{"none", http.Header{}, 0, 0, 0, 0},
		{"draft-10 policy", http.Header{"Ratelimit-Policy": {`"default";q=100;w=60`}}, 100.0 / 60, 0, 0, 0},
		{"draft-10 remaining", http.Header{"Ratelimit-Policy": {`"default";q=100;w=10`}, "Ratelimit": {`"default";r=5;t=2`}}, 3, 0, 0, 0},
		{"draft-10 nothing remains", http.Header{"Ratelimit-Policy": {`"default";q=100;w=60`}, "Ratelimit": {`"default";r=0;t=30`}}, 1.0 / 30, 30 * time.Second, 0, 0},
		{"draft-10 the strictest policy", http.Header{"Ratelimit-Policy": {`"burst";q=100;w=60, "daily";q=1000;w=86400`}}, 1000.0 / 86400, 0, 0, 0},
		{"draft-10 split over lines", http.Header{"Ratelimit-Policy": {`"burst";q=100;w=60`, `"slow";q=1;w=10`}}, 0.1, 0, 0, 0},
		{"draft-10 other parameters", http.Header{"Ratelimit-Policy": {`"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:`}}, 6553.5, 0, 0, 0},
		{"draft-10 no window", http.Header{"Ratelimit-Policy": {`"default";q=100`}}, 0, 0, 0, 0},
		{"draft-10 reset under a second", http.Header{"Ratelimit": {`"default";r=3;t=0`}}, 4, 0, 0, 0},
		{"draft-10 a quoted comma and semicolon", http.Header{"Ratelimit-Policy": {`"a,b;c";q=10;w=5`}}, 2, 0, 0, 0},
		{"older draft limit", http.Header{"Ratelimit-Limit": {"100, 100;w=60"}}, 100.0 / 60, 0, 0, 0},
		{"older draft window name", http.Header{"Ratelimit-Limit": {"10, 10;window=1, 50;window=60"}}, 50.0 / 60, 0, 0, 0},
		{"older draft policy field", http.Header{"Ratelimit-Limit": {"10"}, "Ratelimit-Policy": {"10;w=1"}}, 10, 0, 0, 0},
		{"older draft nothing remains", http.Header{"Ratelimit-Limit": {"10, 10;w=1"}, "Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"1"}}, 1, time.Second, 0, 0},
		{"older draft remaining", http.Header{"Ratelimit-Limit": {"100"}, "Ratelimit-Remaining": {"19"}, "Ratelimit-Reset": {"40"}}, 0.5, 0, 0, 0},
		{"X- delay-seconds", http.Header{"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"29"}, "X-Ratelimit-Reset": {"10"}}, 3, 0, 0, 0},
		// A Unix-time reset is a second after the window's end; without a
		// limit, none remaining holds until that end.
		{"X- Unix time vs Date", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {unix(90 * time.Second)},
			"Date": {server.Format(http.TimeFormat)}}, 0, 89 * time.Second, 0, 0},
		{"X- Unix time remaining, no limit", http.Header{"X-Ratelimit-Remaining": {"99"}, "X-Ratelimit-Reset": {unix(50 * time.Second)},
			"Date": {server.Format(http.TimeFormat)}}, 0, 0, 0, 0},
		{"X- Unix time in the past", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {unix(-time.Minute)},
			"Date": {server.Format(http.TimeFormat)}}, 0, 0, 0, 0},
		{"X- Unix time without Date", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(now.Add(5*time.Second).Unix(), 10)}}, 0, 4 * time.Second, 0, 0},
		{"X- Unix time, Date within its resolution", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(now.Add(5*time.Second).Unix(), 10) + ".250"},
			"Date": {now.Add(-time.Second).Format(http.TimeFormat)}}, 0, 4250 * time.Millisecond, 0, 0},
		// slowapi's, over limits 2.8 (X-RateLimit-Reset: 1 + the window's end,
		// truncated to whole seconds): the quota, and the time left of the
		// window, rounded up; none remaining holds nothing.
		{"slowapi, 2 a second, first request", http.Header{"X-Ratelimit-Limit": {"2"}, "X-Ratelimit-Remaining": {"1"},
			"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(1300*time.Millisecond).Unix()+1, 10)}}, 0, 0, 2, time.Second},
		{"slowapi, 10 a minute, first request", http.Header{"X-Ratelimit-Limit": {"10"}, "X-Ratelimit-Remaining": {"9"},
			"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(time.Minute).Unix()+1, 10)}}, 0, 0, 10, time.Minute},
		{"slowapi, 10 a minute, late in the window", http.Header{"X-Ratelimit-Limit": {"10"}, "X-Ratelimit-Remaining": {"0"},
			"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(5*time.Second).Unix()+1, 10)}}, 0, 0, 10, 5 * time.Second},
		{"slowapi, behind uvicorn's Date a minute late", http.Header{"X-Ratelimit-Limit": {"2"}, "X-Ratelimit-Remaining": {"1"},
			"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(1300*time.Millisecond).Unix()+1, 10)}, "Date": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0, 0, 2, time.Second},
		{"slowapi, the window's end passed", http.Header{"X-Ratelimit-Limit": {"2"}, "X-Ratelimit-Remaining": {"2"},
			"X-Ratelimit-Reset": {strconv.FormatInt(now.Unix()+1, 10)}}, 0, 0, 2, time.Second},
		{"X- decimal reset", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1.5"}}, 1 / 1.5, 1500 * time.Millisecond, 0, 0},
		{"a huge reset is capped", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"99999999"}}, 1 / 99999999.0, 1e6 * time.Second, 0, 0},
		{"all three: the strictest", http.Header{"Ratelimit-Policy": {`"d";q=50;w=1`}, "Ratelimit-Limit": {"10, 10;w=1"},
			"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"2"}}, 0.5, 2 * time.Second, 0, 0},
		// Malformed fields are ignored.
		{"unterminated string", http.Header{"Ratelimit-Policy": {`"default;q=1;w=1`}}, 0, 0, 0, 0},
		{"bad escape", http.Header{"Ratelimit-Policy": {`"de\x";q=1;w=1`}}, 0, 0, 0, 0},
		{"empty member", http.Header{"Ratelimit-Policy": {`"a";q=1;w=1,,"b";q=2;w=1`}}, 0, 0, 0, 0},
		{"upper-case key", http.Header{"Ratelimit-Policy": {`"a";Q=1;w=1`}}, 0, 0, 0, 0},
		{"negative", http.Header{"X-Ratelimit-Remaining": {"-1"}, "X-Ratelimit-Reset": {"5"}}, 0, 0, 0, 0},
		{"not a number", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"soon"}}, 0, 0, 0, 0},
		{"two values", http.Header{"Ratelimit-Remaining": {"0", "0"}, "Ratelimit-Reset": {"5"}}, 0, 0, 0, 0},
		{"exponent", http.Header{"Ratelimit-Limit": {"1e3;w=1"}}, 0, 0, 0, 0},
		{"decimal past three places", http.Header{"Ratelimit-Policy": {`"d";q=1.2345;w=1`}}, 0, 0, 0, 0},
		{"an inner list is no policy", http.Header{"Ratelimit-Policy": {`("a" "b");q=1;w=1, "c";q=2;w=1`}}, 2, 0, 0, 0},
		{"a token name and a boolean parameter", http.Header{"Ratelimit-Policy": {`default;q=10;w=2;x`}}, 5, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Parse(tc.h, now)
			if math.Abs(l.Rate-tc.rate) > 1e-9 || l.Wait != tc.wait || l.Quota != tc.quota || l.Window != tc.window {
				t.Errorf("Parse(%v) = %+v; want rate %v, wait %v, quota %v a window of %v", tc.h, l, tc.rate, tc.wait, tc.quota, tc.window)
			}
		})
	}
}

// TestRestates: slowapi's Retry-After on a 200, int(reset - now) or the
// handler's own if later, restates X-RateLimit-Reset; a handler's that is
// later than the reset, or one without a Unix-time reset, does not.
func TestRestates(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 300e6, time.UTC)
	h := http.Header{"X-Ratelimit-Limit": {"10"}, "X-Ratelimit-Remaining": {"4"}, "X-Ratelimit-Reset": {strconv.FormatInt(now.Unix()+41, 10)}}
	l := Parse(h, now) // the reset is 40.7 s away: slowapi says Retry-After: 40
	for _, tc := range []struct {
		d    time.Duration
		want bool
	}{{40 * time.Second, true}, {41 * time.Second, true}, {2 * time.Second, false}, {45 * time.Second, false}} {
		if got := l.Restates(tc.d); got != tc.want {
			t.Errorf("Restates(%v) with the reset 40.7 s away = %v; want %v", tc.d, got, tc.want)
		}
	}
	if (Limit{}).Restates(0) || Parse(http.Header{"X-Ratelimit-Reset": {"40"}}, now).Restates(40*time.Second) {
		t.Error("Restates without a Unix-time reset = true; want false")
	}
}

// TestParseWithoutFieldsAllocatesNothing: every poll reads the headers, and
// most answers carry none of these fields.
func TestParseWithoutFieldsAllocatesNothing(t *testing.T) {
	h := http.Header{"Retry-After": {"2"}, "Content-Type": {"application/json"}}
	if n := testing.AllocsPerRun(100, func() { Parse(h, time.Time{}) }); n != 0 {
		t.Errorf("Parse without rate-limit fields: %v allocations, want 0", n)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`"default";q=100;w=60`, `"default";r=0;t=30`, "100, 100;w=60", "0", "1.5", "1893456000", `"a\"b";q=1`, "", ",", `"`} {
		f.Add(s, s, "5")
	}
	nines := strings.Repeat("9", 400) // past float64's range
	f.Add(`"d";q=`+nines+";w=1", "", "")
	f.Add("", "", nines)
	f.Fuzz(func(t *testing.T, policy, limit, reset string) {
		h := http.Header{"Ratelimit-Policy": {policy}, "Ratelimit": {limit}, "Ratelimit-Limit": {limit},
			"Ratelimit-Remaining": {reset}, "Ratelimit-Reset": {reset}, "X-Ratelimit-Remaining": {reset}, "X-Ratelimit-Reset": {limit}, "X-Ratelimit-Limit": {reset}}
		l := Parse(h, time.Unix(1e9, 0))
		if l.Rate < 0 || math.IsNaN(l.Rate) || math.IsInf(l.Rate, 0) || l.Wait < 0 || l.Wait > 1e6*time.Second ||
			l.Quota < 0 || math.IsNaN(l.Quota) || math.IsInf(l.Quota, 0) || l.Window < 0 || l.Window > 1e6*time.Second || l.restate < 0 {
			t.Fatalf("Parse(%q, %q, %q) = %+v", policy, limit, reset, l)
		}
	})
}
