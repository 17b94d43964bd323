package benchmarks

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// scenarioSeed fixes the scenario set: every run measures the same
// operations.
const scenarioSeed = 8

// A hint is a Retry-After policy of the server: the delay and how it is
// written (seconds, HTTP-date, or not at all).
type hint struct {
	d    time.Duration
	form tensorpooltest.RetryAfterForm
}

func (h hint) String() string {
	switch h.form {
	case tensorpooltest.RetryAfterOmitted:
		return "none"
	case tensorpooltest.RetryAfterHTTPDate:
		return fmt.Sprintf("date+%v", h.d)
	}
	return fmt.Sprint(h.d)
}

// A burst makes the next n polls fail with status, Retry-After retryAfter
// (verbatim; empty for none): a rate limiter or an overloaded gateway.
type burst struct {
	n          int
	status     int
	retryAfter string
}

// An event changes the server's behaviour at a moment of the operation:
// a new Retry-After policy, or a burst of failures.
type event struct {
	at    time.Duration
	hint  *hint
	burst *burst
}

// A scenario is one asynchronous operation: its lifecycle (counted from its
// creation at time 0), the Retry-After policy the server starts with, and
// what changes while it runs.
type scenario struct {
	index     int
	lifecycle tensorpooltest.Lifecycle
	start     hint
	events    []event // in time order
}

// done is when the operation reaches its terminal status.
func (s scenario) done() time.Duration {
	var d time.Duration
	for _, p := range s.lifecycle[:len(s.lifecycle)-1] {
		d += p.For
	}
	return d
}

// hintDelays are the server's Retry-After values the issue names.
var hintDelays = []time.Duration{1 * time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second}

func randomHint(r *rand.Rand) hint {
	h := hint{d: hintDelays[r.IntN(len(hintDelays))]}
	switch x := r.Float64(); {
	case x < 0.70:
		h.form = tensorpooltest.RetryAfterSeconds
	case x < 0.85:
		h.form = tensorpooltest.RetryAfterHTTPDate
	default:
		h.form = tensorpooltest.RetryAfterOmitted
	}
	return h
}

// scenarios returns n operations drawn from a fixed seed:
//   - durations log-uniform from 2 s to 40 min, PENDING for 5-30 % of it,
//     then PROCESSING; one in ten goes through RETRYING on the way; one in
//     ten ends FAILED, the rest COMPLETED;
//   - a starting Retry-After of 1, 2, 5, 10 or 30 s, sent as seconds (70 %),
//     an HTTP-date (15 %) or not at all (15 %);
//   - in 40 % of them the policy changes 1-3 times while they run;
//   - in 25 %, 1-2 bursts of 1-4 consecutive 429 or 503 answers, with a
//     Retry-After of 1-10 s (60 %) or none.
func scenarios(n int) []scenario {
	r := rand.New(rand.NewPCG(scenarioSeed, 0))
	out := make([]scenario, n)
	for i := range out {
		const lo, hi = 2 * time.Second, 40 * time.Minute
		total := time.Duration(math.Exp(math.Log(float64(lo)) + r.Float64()*(math.Log(float64(hi))-math.Log(float64(lo))))).Round(time.Millisecond)
		pending := time.Duration(float64(total) * (0.05 + 0.25*r.Float64())).Round(time.Millisecond)
		processing := total - pending
		l := tensorpooltest.Lifecycle{{Status: gen.RequestStatusPENDING, For: pending}}
		if r.IntN(10) == 0 {
			a := processing / 3
			l = append(l,
				tensorpooltest.Phase{Status: gen.RequestStatusPROCESSING, For: a},
				tensorpooltest.Phase{Status: gen.RequestStatusRETRYING, For: a},
				tensorpooltest.Phase{Status: gen.RequestStatusPROCESSING, For: processing - 2*a})
		} else {
			l = append(l, tensorpooltest.Phase{Status: gen.RequestStatusPROCESSING, For: processing})
		}
		if r.IntN(10) == 0 {
			l = append(l, tensorpooltest.Phase{Status: gen.RequestStatusFAILED, Message: "capacity unavailable"})
		} else {
			l = append(l, tensorpooltest.Phase{Status: gen.RequestStatusCOMPLETED})
		}
		s := scenario{index: i, lifecycle: l, start: randomHint(r)}
		if r.Float64() < 0.40 {
			for range 1 + r.IntN(3) {
				h := randomHint(r)
				s.events = append(s.events, event{at: randomMoment(r, total), hint: &h})
			}
		}
		if r.Float64() < 0.25 {
			for range 1 + r.IntN(2) {
				b := burst{n: 1 + r.IntN(4), status: http.StatusTooManyRequests}
				if r.IntN(2) == 0 {
					b.status = http.StatusServiceUnavailable
				}
				if r.Float64() < 0.60 {
					b.retryAfter = fmt.Sprint(1 + r.IntN(10))
				}
				s.events = append(s.events, event{at: randomMoment(r, total), burst: &b})
			}
		}
		slices.SortStableFunc(s.events, func(a, b event) int { return cmp.Compare(a.at, b.at) })
		out[i] = s
	}
	return out
}

// randomMoment is a moment within the operation, to the millisecond.
func randomMoment(r *rand.Rand, total time.Duration) time.Duration {
	return time.Duration(r.Int64N(int64(total))).Round(time.Millisecond)
}
