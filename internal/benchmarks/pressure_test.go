package benchmarks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

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
	inOverload, total, peak int     // requests: during the overload, in all, most in one second of it
	completed               int     // ids whose terminal status the strategy saw
	virtual                 float64 // seconds from the first poll to the strategy's return
	latency                 []time.Duration
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
		f.virtual = time.Since(t0).Seconds()
		f.total = obs.polls
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

// TestStorm measures the requests per second an overloaded server gets
// from each strategy waiting for stormIDs ids.
func TestStorm(t *testing.T) {
	needFigures(t)
	for _, ra := range []string{"", "0", "5"} {
		for _, st := range append(waitStrategies(), baselines[1], baselines[2]) {
			var f stormFigures
			res := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					f = runStorm(t, st, ra)
				}
				b.ReportMetric(stormIDs, "ids")
				b.ReportMetric(stormOverload.Seconds(), "overload-s")
				b.ReportMetric(float64(f.inOverload), "requests-in-overload")
				b.ReportMetric(float64(f.inOverload)/stormOverload.Seconds(), "rps-mean")
				b.ReportMetric(float64(f.peak), "rps-peak")
				b.ReportMetric(float64(f.total), "requests")
				b.ReportMetric(float64(f.completed), "completed")
				b.ReportMetric(quantile(f.latency, 0.5).Seconds(), "latency-p50-s")
				b.ReportMetric(quantile(f.latency, 1).Seconds(), "latency-max-s")
				b.ReportMetric(f.virtual, "virtual-s")
			})
			name := ra
			if name == "" {
				name = "none"
			}
			printBench(fmt.Sprintf("Storm/retry-after=%s/strategy=%s", name, st.name), res)
		}
	}
}

// noHeaderTimes are the completion times the no-header comparison uses
// (odd, so the CLI, polling at even seconds, detects each 1 s late).
var noHeaderTimes = []time.Duration{7 * time.Second, 31 * time.Second, 97 * time.Second, 301 * time.Second}

// noHeaderRuns is how many times package wait, whose jitter is random,
// runs each completion time.
const noHeaderRuns = 200

// TestNoHeader compares package wait with the official CLI on one request
// id whose server never sends Retry-After, completing at each of
// noHeaderTimes: polls and detection latency.
func TestNoHeader(t *testing.T) {
	needFigures(t)
	for _, T := range noHeaderTimes {
		for _, st := range []strategy{waitStrategies()[0], baselines[0]} {
			runs := noHeaderRuns
			if st.name == "tp-cli" {
				runs = 1 // no randomness
			}
			var polls []int
			var lat []time.Duration
			res := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					polls, lat = nil, nil
					for i := range runs {
						s := scenario{index: i, start: hint{form: tensorpooltest.RetryAfterOmitted},
							lifecycles: []tensorpooltest.Lifecycle{tensorpooltest.Succeed(T/5, T-T/5)}}
						o := runScenario(t, s, st, lightBackend)
						if o.err != nil {
							t.Errorf("%s, T=%v: %v", st.name, T, o.err)
						}
						polls, lat = append(polls, o.polls), append(lat, o.latency)
					}
				}
				polls, lat = sortedCopy(polls), sortedCopy(lat)
				b.ReportMetric(T.Seconds(), "T-s")
				b.ReportMetric(float64(runs), "runs")
				b.ReportMetric(float64(quantile(polls, 0.5)), "polls-p50")
				b.ReportMetric(float64(quantile(polls, 1)), "polls-max")
				b.ReportMetric(quantile(lat, 0.5).Seconds(), "latency-p50-s")
				b.ReportMetric(quantile(lat, 0.99).Seconds(), "latency-p99-s")
				b.ReportMetric(quantile(lat, 1).Seconds(), "latency-max-s")
			})
			printBench(fmt.Sprintf("NoHeader/T=%v/strategy=%s", T.Seconds(), st.name), res)
		}
	}
}
