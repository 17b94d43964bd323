package benchmarks

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/wait"
)

// waitStrategies is package wait with its defaults: Wait for one id,
// WaitAll for several. Its jitter comes from
// math/rand/v2's global source, which cannot be seeded from outside the
// package: its figures vary a little from run to run (the baselines' do
// not).
func waitStrategies() []strategy {
	return []strategy{{"wait", func(ctx context.Context, c *gen.ClientWithResponses, ids []string, _ *rand.Rand) error {
		p := wait.New(c)
		var err error
		if len(ids) == 1 {
			_, err = p.Wait(ctx, ids[0])
		} else {
			_, err = p.WaitAll(ctx, ids...)
		}
		if errors.Is(err, wait.ErrFailed) && !errors.Is(err, context.DeadlineExceeded) {
			return nil // a FAILED request is a terminal status seen
		}
		return err
	}}}
}

// scaleWaiters is package wait's WaitAll with its defaults and, at 10,000
// ids, with a bound of 64 requests in flight (at the default 8 and a 20 ms
// round trip one Poller sends at most 400 polls/s, and 10,000 ids at
// Retry-After 5 s ask for 2,000/s), and the alternative to its scheduler: a
// goroutine per id, polling with Step and sleeping, the Poller's bound on
// polls in flight as the semaphore.
func scaleWaiters() []waitAller {
	waitAll := func(opts ...wait.Option) func(context.Context, *gen.ClientWithResponses, []string) error {
		return func(ctx context.Context, c *gen.ClientWithResponses, ids []string) error {
			_, err := wait.New(c, opts...).WaitAll(ctx, ids...)
			return err
		}
	}
	return []waitAller{
		{name: "wait", waitAll: waitAll()},
		{name: "wait-concurrency-64", waitAll: waitAll(wait.WithConcurrency(64)), only: true},
		{name: "goroutine-per-id", only: true,
			waitAll: func(ctx context.Context, c *gen.ClientWithResponses, ids []string) error {
				p := wait.New(c)
				errs := make([]error, len(ids))
				var wg sync.WaitGroup
				for i, id := range ids {
					wg.Go(func() { // Wait's loop, on its own goroutine
						var s *wait.Step
						for s == nil || !s.Done && errs[i] == nil {
							if s != nil {
								time.Sleep(s.Next)
							}
							s, errs[i] = p.Step(ctx, id, s)
						}
					})
				}
				wg.Wait()
				return errors.Join(errs...)
			}},
	}
}

// TestWaitOnCrossCheckSet runs package wait on the cross-check operations
// against both the light responder and the engine: it never polls earlier
// than allowed and always sees the terminal status, on either. (Its jitter
// is random, so the traces differ from run to run and are not compared.)
func TestWaitOnCrossCheckSet(t *testing.T) {
	st := waitStrategies()[0]
	for _, kind := range []backendKind{lightBackend, engineBackendKind} {
		for _, s := range crossCheckSet() {
			o := runScenario(t, s, st, kind)
			if o.err != nil || o.early != 0 {
				t.Errorf("backend %d, scenario %d: %d early polls of %d, err %v", kind, s.index, o.early, o.polls, o.err)
			}
			if o.ratio > 1.25 && !o.failedAfterDone {
				t.Errorf("backend %d, scenario %d: detection latency %.2f × the Retry-After in force", kind, s.index, o.ratio)
			}
		}
	}
}
