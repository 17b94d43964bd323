package benchmarks

import (
	"context"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// crossCheckSet is a few short operations of the scenario set, chosen so
// that between them they have every feature: each Retry-After form at the
// start, a change of policy, 429 and 503 bursts with and without
// Retry-After, RETRYING, FAILED.
func crossCheckSet() []scenario {
	features := []func(scenario) bool{
		func(s scenario) bool { return s.start.form == tensorpooltest.RetryAfterSeconds },
		func(s scenario) bool { return s.start.form == tensorpooltest.RetryAfterHTTPDate },
		func(s scenario) bool { return s.start.form == tensorpooltest.RetryAfterOmitted },
		func(s scenario) bool {
			return slices.ContainsFunc(s.events, func(e event) bool { return e.hint != nil })
		},
		func(s scenario) bool {
			return slices.ContainsFunc(s.events, func(e event) bool { return e.burst != nil && e.burst.status == http.StatusTooManyRequests })
		},
		func(s scenario) bool {
			return slices.ContainsFunc(s.events, func(e event) bool { return e.burst != nil && e.burst.status == http.StatusServiceUnavailable })
		},
		func(s scenario) bool {
			return slices.ContainsFunc(s.events, func(e event) bool { return e.burst != nil && e.burst.retryAfter == "" })
		},
		func(s scenario) bool {
			return slices.ContainsFunc(s.lifecycles[0], func(p tensorpooltest.Phase) bool { return p.Status == gen.RequestStatusRETRYING })
		},
		func(s scenario) bool {
			return s.lifecycles[0][len(s.lifecycles[0])-1].Status == gen.RequestStatusFAILED
		},
	}
	var set []scenario
	for _, f := range features {
		for _, s := range scenarios(1000) {
			// One request id: several polled concurrently could meet a
			// burst in either order, so their traces need not be equal.
			if len(s.lifecycles) == 1 && s.done() < 40*time.Second && !decimalHint(s) && f(s) {
				if !slices.ContainsFunc(set, func(x scenario) bool { return x.index == s.index }) {
					set = append(set, s)
				}
				break
			}
		}
	}
	return set
}

// decimalHint reports whether a scenario's server sends a decimal
// Retry-After ("2.5"), which only the light responder does.
func decimalHint(s scenario) bool {
	return s.start.d%time.Second != 0 || slices.ContainsFunc(s.events, func(e event) bool {
		return e.hint != nil && e.hint.d%time.Second != 0
	})
}

// traceScenario runs a strategy on a scenario against a backend and returns
// every answer the client saw.
func traceScenario(t *testing.T, s scenario, st strategy, kind backendKind) []string {
	var trace []string
	synctest.Test(t, func(t *testing.T) {
		obs, ids := serve(t, s, kind)
		obs.traced = true
		ctx, cancel := context.WithTimeout(context.Background(), s.done()+time.Hour)
		defer cancel()
		if err := st.wait(ctx, newClient(t, obs), ids, rand.New(rand.NewPCG(scenarioSeed, uint64(s.index)))); err != nil {
			t.Errorf("scenario %d, %s: %v", s.index, st.name, err)
		}
		trace = obs.trace
	})
	return trace
}

// TestLightServerMatchesEngine is why the light responder may stand in for
// tensorpooltest's engine in the large runs: on operations covering every
// feature of the scenario set, a strategy sees the same answers (status
// code, Date, Retry-After, Content-Type, and the body's fields) at the same
// virtual moments from both. The strategies with no randomness of their own
// make the comparison exact.
func TestLightServerMatchesEngine(t *testing.T) {
	set := crossCheckSet()
	if len(set) < 5 {
		t.Fatalf("only %d cross-check scenarios", len(set))
	}
	answers := 0
	defer func() { t.Logf("%d scenarios, %d answers compared", len(set), answers) }()
	for _, st := range baselines {
		for _, s := range set {
			light := traceScenario(t, s, st, lightBackend)
			engine := traceScenario(t, s, st, engineBackendKind)
			answers += len(light)
			if !slices.Equal(light, engine) {
				for i := range max(len(light), len(engine)) {
					var l, e string
					if i < len(light) {
						l = light[i]
					}
					if i < len(engine) {
						e = engine[i]
					}
					if l != e {
						t.Fatalf("%s, scenario %d: answer %d differs:\nlight:  %s\nengine: %s", st.name, s.index, i, l, e)
					}
				}
			}
		}
	}
}
