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

// A scenario is one asynchronous operation: the lifecycles of its request
// ids (counted from their creation at time 0; one id for most operations,
// one per cluster for a storage attach to several), the Retry-After policy
// the server starts with, and what changes while it runs.
type scenario struct {
	index      int
	lifecycles []tensorpooltest.Lifecycle
	start      hint
	events     []event // in time order
}

// lifecycleEnd is when a lifecycle reaches its terminal status.
func lifecycleEnd(l tensorpooltest.Lifecycle) time.Duration {
	var d time.Duration
	for _, p := range l[:len(l)-1] {
		d += p.For
	}
	return d
}

// done is when the operation's last request reaches its terminal status.
func (s scenario) done() time.Duration {
	var d time.Duration
	for _, l := range s.lifecycles {
		d = max(d, lifecycleEnd(l))
	}
	return d
}

// hintDelays are the server's Retry-After values the issue names, and a
// decimal one ("2.5", which the CLI reads as none, polling after 2 s).
var hintDelays = []time.Duration{1 * time.Second, 2 * time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 30 * time.Second}

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
//   - 15 % are storage attaches to 2-4 clusters: as many request ids, all
//     completing, each within 50-100 % of the first one's duration;
//   - a starting Retry-After of 1, 2, 2.5, 5, 10 or 30 s, sent as seconds
//     (70 %; "2.5" as a decimal), an HTTP-date (15 %) or not at all (15 %);
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
		s := scenario{index: i, lifecycles: []tensorpooltest.Lifecycle{l}, start: randomHint(r)}
		if r.Float64() < 0.15 {
			// A storage attach to 2-4 clusters: one request id each, all
			// completing, within half the first one's time to all of it.
			l[len(l)-1] = tensorpooltest.Phase{Status: gen.RequestStatusCOMPLETED}
			for range 1 + r.IntN(3) {
				d := time.Duration(float64(total) * (0.5 + 0.5*r.Float64())).Round(time.Millisecond)
				s.lifecycles = append(s.lifecycles, tensorpooltest.Succeed(d/5, d-d/5))
			}
			// The longest is not always the first id, which a sequential
			// poller would favour.
			r.Shuffle(len(s.lifecycles), func(i, j int) { s.lifecycles[i], s.lifecycles[j] = s.lifecycles[j], s.lifecycles[i] })
		}
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
