package benchmarks

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"

	"github.com/tensorpool/tensorpool-go/gen"
)

// waitStrategies is package wait, once it is merged.
func waitStrategies() []strategy { return nil }

// scaleWaiters is package wait's WaitAll, once it is merged; until then a
// goroutine per id on the CLI's rule, 8 requests in flight.
func scaleWaiters() []waitAller {
	return []waitAller{{name: "cli-goroutines", bound: 8, waitAll: func(ctx context.Context, c *gen.ClientWithResponses, ids []string) error {
		sem := make(chan struct{}, 8)
		lim := &limited{sem: sem, c: c}
		_ = lim
		var wg sync.WaitGroup
		errs := make([]error, len(ids))
		for i, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = cliRule(ctx, c, id, rand.New(rand.NewPCG(1, 1)))
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	}}}
}

type limited struct {
	sem chan struct{}
	c   *gen.ClientWithResponses
}
