package benchmarks

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

var economyN = flag.Int("economy.n", 1000, "operations in the request-economy scenario set")

// outcome is one strategy on one scenario.
type outcome struct {
	polls, early int
	latency      time.Duration // from the last request's completion to the strategy's return
	// ratio is the largest, over the operation's request ids whose last
	// answer before completion granted a Retry-After, of the id's
	// detection latency over that Retry-After; 0: no such id.
	ratio float64
	// noHint is the largest detection latency over the ids whose last
	// answer before completion had no usable Retry-After; -1: no such id.
	noHint     time.Duration
	sawFailure bool // a non-200 answer (the official CLI stops there)
	// failedAfterDone: a non-200 answer after an id completed, which
	// delays its detection whatever the strategy.
	failedAfterDone bool
	err             error
}

type backendKind int

const (
	lightBackend      backendKind = iota // lightServer
	engineBackendKind                    // tensorpooltest.Engine
)

// serve starts a backend for a scenario, inside the bubble, with its
// requests created now; it returns the backend, the request ids, and an
// observer between them and the client that tracks when each completes.
func serve(t *testing.T, s scenario, kind backendKind) (*observer, []string) {
	start := time.Now()
	var be backend
	var ids []string
	if kind == lightBackend {
		ls := newLightServer(s.start)
		for _, l := range s.lifecycles {
			ids = append(ids, ls.add(l))
		}
		be = ls
	} else {
		be, ids = newEngineRequests(t, s.start, s.lifecycles)
	}
	obs := newObserver(be, s.events)
	for i, id := range ids {
		obs.track(id, start.Add(lifecycleEnd(s.lifecycles[i])))
	}
	return obs, ids
}

// runScenario runs one strategy on one scenario in its own bubble, in
// virtual time starting at the requests' creation.
func runScenario(t *testing.T, s scenario, st strategy, kind backendKind) outcome {
	var out outcome
	synctest.Test(t, func(t *testing.T) {
		done := time.Now().Add(s.done())
		obs, ids := serve(t, s, kind)
		ctx, cancel := context.WithTimeout(context.Background(), s.done()+time.Hour)
		defer cancel()
		out.err = st.wait(ctx, newClient(t, obs), ids, rand.New(rand.NewPCG(scenarioSeed, uint64(s.index))))
		out.latency, out.noHint = time.Since(done), -1
		for _, id := range ids {
			rec := obs.ids[id]
			out.polls += rec.polls
			out.early += rec.early
			out.sawFailure = out.sawFailure || rec.sawFailure
			out.failedAfterDone = out.failedAfterDone || rec.failedAfterDone
			switch {
			case rec.detected.IsZero():
			case rec.inForce > 0:
				out.ratio = max(out.ratio, float64(rec.detected.Sub(rec.done))/float64(rec.inForce))
			default:
				out.noHint = max(out.noHint, rec.detected.Sub(rec.done))
			}
		}
	})
	return out
}

// summary aggregates a strategy's outcomes over a scenario set.
type summary struct {
	ops, polls, early, earlyOps, errors, failureOps int
	latencies                                       []time.Duration // of the operations seen to end
	// ratios are the operations' outcome.ratio, where they have one;
	// noHint their outcome.noHint, where they have one.
	ratios []float64
	noHint []time.Duration
	// clean are the ratios of the operations without a 429/503 after
	// completion, which delays every strategy.
	clean []float64
}

func (s *summary) add(o outcome) {
	s.ops++
	s.polls += o.polls
	s.early += o.early
	if o.early > 0 {
		s.earlyOps++
	}
	if o.sawFailure {
		s.failureOps++
	}
	if o.err != nil {
		s.errors++
		return
	}
	s.latencies = append(s.latencies, o.latency)
	if o.ratio > 0 {
		s.ratios = append(s.ratios, o.ratio)
		if !o.failedAfterDone {
			s.clean = append(s.clean, o.ratio)
		}
	}
	if o.noHint >= 0 {
		s.noHint = append(s.noHint, o.noHint)
	}
}

func (s *summary) report(b *testing.B) {
	lat := sortedCopy(s.latencies)
	ratios := sortedCopy(s.ratios)
	b.ReportMetric(float64(s.ops), "ops")
	b.ReportMetric(float64(s.polls), "polls")
	b.ReportMetric(float64(s.early), "early-polls")
	b.ReportMetric(float64(s.earlyOps), "ops-with-early-polls")
	b.ReportMetric(quantile(lat, 0.50).Seconds(), "latency-p50-s")
	b.ReportMetric(quantile(lat, 0.99).Seconds(), "latency-p99-s")
	b.ReportMetric(quantile(lat, 1).Seconds(), "latency-max-s")
	b.ReportMetric(quantile(ratios, 0.50), "latency/hint-p50")
	b.ReportMetric(quantile(ratios, 0.99), "latency/hint-p99")
	b.ReportMetric(quantile(ratios, 1), "latency/hint-max")
	b.ReportMetric(float64(len(ratios)), "ops-in-latency/hint")
	clean := sortedCopy(s.clean)
	b.ReportMetric(quantile(clean, 0.99), "latency/hint-p99-clean")
	b.ReportMetric(quantile(clean, 1), "latency/hint-max-clean")
	b.ReportMetric(float64(len(clean)), "ops-in-latency/hint-clean")
	noHint := sortedCopy(s.noHint)
	b.ReportMetric(quantile(noHint, 0.50).Seconds(), "no-hint-latency-p50-s")
	b.ReportMetric(quantile(noHint, 0.99).Seconds(), "no-hint-latency-p99-s")
	b.ReportMetric(quantile(noHint, 1).Seconds(), "no-hint-latency-max-s")
	b.ReportMetric(float64(len(noHint)), "ops-no-hint")
	b.ReportMetric(float64(s.errors), "errors")
	b.ReportMetric(float64(s.failureOps), "ops-with-non200")
}

// groups splits the set for a finer view. Operations on one request id:
// those whose server keeps one Retry-After policy throughout, by the form it
// is sent in, and those where it changes or bursts of 429/503 come. Then
// the operations on several ids (storage attach), whatever their policy.
var groups = []struct {
	name string
	in   func(scenario) bool
}{
	{"steady-seconds", func(s scenario) bool {
		return len(s.lifecycles) == 1 && len(s.events) == 0 && s.start.form == tensorpooltest.RetryAfterSeconds
	}},
	{"steady-date", func(s scenario) bool {
		return len(s.lifecycles) == 1 && len(s.events) == 0 && s.start.form == tensorpooltest.RetryAfterHTTPDate
	}},
	{"steady-none", func(s scenario) bool {
		return len(s.lifecycles) == 1 && len(s.events) == 0 && s.start.form == tensorpooltest.RetryAfterOmitted
	}},
	{"changing", func(s scenario) bool { return len(s.lifecycles) == 1 && len(s.events) > 0 }},
	{"multi-id", func(s scenario) bool { return len(s.lifecycles) > 1 }},
}

// runSet runs a strategy on every scenario: the summary of all, and one per
// group.
func runSet(t *testing.T, set []scenario, st strategy, kind backendKind) (summary, []summary) {
	var sum summary
	by := make([]summary, len(groups))
	for _, s := range set {
		o := runScenario(t, s, st, kind)
		sum.add(o)
		for i, g := range groups {
			if g.in(s) {
				by[i].add(o)
			}
		}
	}
	return sum, by
}

// reportGroup reports a group's figures, their units suffixed "@group".
func (s *summary) reportGroup(b *testing.B, group string) {
	lat := sortedCopy(s.latencies)
	b.ReportMetric(float64(s.ops), "ops@"+group)
	b.ReportMetric(float64(s.polls), "polls@"+group)
	b.ReportMetric(float64(s.early), "early-polls@"+group)
	b.ReportMetric(quantile(lat, 0.50).Seconds(), "latency-p50-s@"+group)
	b.ReportMetric(quantile(lat, 0.99).Seconds(), "latency-p99-s@"+group)
	b.ReportMetric(float64(s.errors), "errors@"+group)
}

// TestEconomy measures request economy and detection latency: every
// strategy on the same operations, against the light responder.
func TestEconomy(t *testing.T) {
	needFigures(t)
	set := scenarios(*economyN)
	for _, st := range strategies() {
		var sum summary
		var by []summary
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sum, by = runSet(t, set, st, lightBackend)
			}
			sum.report(b)
			for i, g := range groups {
				by[i].reportGroup(b, g.name)
			}
		})
		printBench(fmt.Sprintf("Economy/strategy=%s", st.name), res)
		if sum.errors > 0 {
			t.Logf("%s: %d of %d operations ended without a terminal status", st.name, sum.errors, sum.ops)
		}
	}
}

// strategies is every strategy compared: package wait first.
func strategies() []strategy { return append(waitStrategies(), baselines...) }
