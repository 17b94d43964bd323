package benchmarks

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// noHeaderTimes are the completion times the no-header comparison uses
// (odd, so the CLI, polling at even seconds, detects each 1 s late).
var noHeaderTimes = []time.Duration{7 * time.Second, 31 * time.Second, 97 * time.Second, 301 * time.Second}

// noHeaderRuns is how many times package wait, whose jitter is random,
// runs each completion time.
const noHeaderRuns = 200

// TestBenchNoHeader compares package wait with the official CLI on one
// request id whose server never sends Retry-After, completing at each of
// noHeaderTimes: polls and detection latency.
func TestBenchNoHeader(t *testing.T) {
	w := measure(t)
	fmt.Fprintf(w, "## Without a Retry-After, does it notice completion about as soon as the CLI?\n\n"+
		"One request id, no Retry-After ever, completing T s after creation; package wait run %d times per T (worst run shown), "+
		"the official CLI's rule (every 2 s) once. Goals: never more polls than the CLI, never more than 2.5 × its latency.\n\n", noHeaderRuns)
	row(w, "T", "CLI polls", "wait polls, max", "CLI latency", "wait latency, max", "goals")
	row(w, "---:", "---:", "---:", "---:", "---:", "---")
	for _, T := range noHeaderTimes {
		// worst is the most polls and the longest latency of runs.
		worst := func(st strategy, runs int) (polls int, lat time.Duration) {
			for i := range runs {
				s := scenario{index: i, start: hint{form: tensorpooltest.RetryAfterOmitted},
					lifecycles: []tensorpooltest.Lifecycle{tensorpooltest.Succeed(T/5, T-T/5)}}
				o := runScenario(t, s, st, lightBackend)
				if o.err != nil {
					t.Errorf("%s, T=%v: %v", st.name, T, o.err)
				}
				polls, lat = max(polls, o.polls), max(lat, o.latency)
			}
			return polls, lat
		}
		wp, wl := worst(waitStrategies()[0], noHeaderRuns)
		cp, cl := worst(baselines[0], 1) // the CLI's rule has no randomness
		row(w, secs(T), cp, wp, secs(cl), secs(wl),
			verdict(t, wp <= cp && wl <= 5*cl/2, fmt.Sprintf("T=%v: no more polls than the CLI, at most 2.5 × its latency", T)))
	}
	fmt.Fprintln(w)
}

// TestBenchStorm measures the requests per second an overloaded server
// gets from each strategy waiting for stormIDs ids.
func TestBenchStorm(t *testing.T) {
	w := measure(t)
	fmt.Fprintf(w, "## Does it back off when the server is overloaded?\n\n"+
		"One WaitAll over %d ids against a server answering 503 for the first %s (with the Retry-After shown, or none); "+
		"package wait holds all its polls for a 429's or 503's Retry-After and cuts the pace they share (down to one poll per "+
		"2 s) while each id waits its own Retry-After; the baselines poll each id on their own.\n\n",
		stormIDs, secs(stormOverload))
	row(w, "Retry-After", "strategy", "requests during overload", "req/s mean", "req/s peak", "latency p50")
	row(w, "---", "---", "---:", "---:", "---:", "---:")
	for _, ra := range []string{"", "0", "5"} {
		for _, st := range append(waitStrategies(), baselines[1], baselines[2]) {
			f := runStorm(t, st, ra)
			if f.completed != stormIDs {
				t.Errorf("Retry-After %q, %s: saw %d of %d ids complete", ra, st.name, f.completed, stormIDs)
			}
			row(w, cmp.Or(ra, "none"), st.name, f.inOverload, num(float64(f.inOverload)/stormOverload.Seconds()), f.peak,
				secs(quantile(f.latency, 0.5)))
		}
	}
	fmt.Fprintln(w)
}

// The storm: one WaitAll over stormIDs request ids against a server that
// answers every poll with 503 for the first stormOverload (an overloaded
// server, with or without Retry-After), then recovers. Every request
// completes at stormDone, inside the overload, so nothing but the overload
// delays its detection.
const (
	stormIDs      = 1000
	stormOverload = 60 * time.Second
	stormDone     = 30 * time.Second
)

// stormFigures is one strategy's storm.
type stormFigures struct {
	inOverload, peak int // requests: during the overload, most in one second of it
	completed        int // ids whose terminal status the strategy saw
	latency          []time.Duration
}

func runStorm(t *testing.T, st strategy, retryAfter string) stormFigures {
	var f stormFigures
	synctest.Test(t, func(t *testing.T) {
		ls := newLightServer(hint{d: scaleHint, form: tensorpooltest.RetryAfterSeconds})
		ls.overload, ls.overloadRA = time.Now().Add(stormOverload), retryAfter
		var ids []string
		for range stormIDs {
			ids = append(ids, ls.add(tensorpooltest.Succeed(stormDone/3, stormDone-stormDone/3)))
		}
		obs := newObserver(delayed{ls, scaleRTT}, nil)
		t0 := time.Now()
		for _, id := range ids {
			obs.track(id, t0.Add(stormDone))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		_ = st.wait(ctx, newClient(t, obs), ids, rand.New(rand.NewPCG(scenarioSeed, 0)))
		for sec, n := range obs.perSecond {
			if time.Duration(sec)*time.Second < stormOverload {
				f.inOverload += n
				f.peak = max(f.peak, n)
			}
		}
		for _, id := range ids {
			if r := obs.ids[id]; !r.detected.IsZero() {
				f.completed++
				f.latency = append(f.latency, r.detected.Sub(r.done))
			}
		}
		slices.Sort(f.latency)
	})
	return f
}
