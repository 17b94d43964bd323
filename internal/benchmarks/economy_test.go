package benchmarks

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"
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
		out.latency = time.Since(done)
		for _, id := range ids {
			rec := obs.ids[id]
			out.polls += rec.polls
			out.early += rec.early
			out.failedAfterDone = out.failedAfterDone || rec.failedAfterDone
			if !rec.detected.IsZero() && rec.inForce > 0 {
				out.ratio = max(out.ratio, float64(rec.detected.Sub(rec.done))/float64(rec.inForce))
			}
		}
	})
	return out
}

// summary aggregates a strategy's outcomes over a scenario set.
type summary struct {
	ops, polls, early, errors int
	latencies                 []time.Duration // of the operations seen to end
	ratios                    []float64       // the operations' outcome.ratio, where they have one
	// clean are the ratios of the operations without a 429/503 after
	// completion, which delays every strategy.
	clean []float64
}

func (s *summary) add(o outcome) {
	s.ops++
	s.polls += o.polls
	s.early += o.early
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
}

// TestBenchEconomy measures request economy and detection latency: every
// strategy on the same operations, against the light responder.
func TestBenchEconomy(t *testing.T) {
	w := measure(t)
	set := scenarios(*economyN)
	fmt.Fprintf(w, "## Does package wait poll politely, and see completion soon?\n\n"+
		"%d mixed operations in virtual time, each waited for by package wait and by the polling rules of other clients. "+
		"*Early*: a poll before the server's Retry-After allowed it. *Latency*: from completion to the waiter returning. "+
		"*÷ hint*: latency over the Retry-After in force at completion. Each operation runs in its own testing/synctest bubble "+
		"against a light responder that answers GET /request/info as tensorpooltest's engine does without its OpenAPI "+
		"validation (TestLightServerMatchesEngine keeps the two alike). The operations come from a fixed seed: durations "+
		"from 2 s to 40 min, Retry-After in seconds, as an HTTP-date or absent, policy changes, 429/503 bursts, RETRYING, "+
		"FAILED, multi-id attaches. The baselines are the official CLI's rule (tp-cli), a fixed 1 s, the AWS SDK waiter's "+
		"backoff and hcloud-go's 500 ms. Package wait's jitter is not seeded, and concurrent pollers can meet a 429/503 burst in either order: figures move slightly between runs.\n\n", len(set))
	row(w, "strategy", "polls/op", "early polls", "latency p50", "latency p99", "latency ÷ hint, p99")
	row(w, "---", "---:", "---:", "---:", "---:", "---:")
	sums := map[string]summary{}
	for _, st := range strategies() {
		var s summary
		for _, sc := range set {
			s.add(runScenario(t, sc, st, lightBackend))
		}
		if s.errors > 0 {
			t.Errorf("%s: %d of %d operations ended without a terminal status", st.name, s.errors, s.ops)
		}
		sums[st.name] = s
		lat := sortedCopy(s.latencies)
		row(w, st.name, num(float64(s.polls)/float64(s.ops)), s.early, secs(quantile(lat, 0.50)), secs(quantile(lat, 0.99)),
			num(quantile(sortedCopy(s.ratios), 0.99)))
	}
	wait, cli := sums["wait"], sums["tp-cli"]
	clean := quantile(sortedCopy(wait.clean), 0.99)
	fmt.Fprintf(w, "\nGoals:\n\n- no early poll: %s (%d)\n", verdict(t, wait.early == 0, "no early poll"), wait.early)
	fmt.Fprintf(w, "- no more polls than the CLI's rule (tp-cli): %s (%s×)\n",
		verdict(t, wait.polls <= cli.polls, "no more polls than tp-cli"), num(float64(wait.polls)/float64(cli.polls)))
	fmt.Fprintf(w, "- p99 latency ≤ 1.25 × the Retry-After, on the operations without a 429/503 after completion: %s "+
		"(%s×; over every operation %s×, as a 429/503 after completion delays every strategy)\n\n",
		verdict(t, clean <= 1.25, "p99 latency ≤ 1.25 × the Retry-After"), num(clean), num(quantile(sortedCopy(wait.ratios), 0.99)))
}

// strategies is every strategy compared: package wait first.
func strategies() []strategy { return append(waitStrategies(), baselines...) }
