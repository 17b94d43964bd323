package benchmarks

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// A strategy waits for an operation's request ids until it has seen a
// terminal status for each. rng is seeded per scenario, for strategies that
// draw jitter.
type strategy struct {
	name string
	wait func(ctx context.Context, c *gen.ClientWithResponses, ids []string, rng *rand.Rand) error
}

// waitOne is a polling rule for one request id.
type waitOne func(ctx context.Context, c *gen.ClientWithResponses, id string, rng *rand.Rand) error

// baselines are the polling rules issue 8 compares package wait with. They
// share one simplification: every answer that is not a terminal status,
// failures included, means "poll again on the rule's schedule". (The
// official CLI stops at the first non-200 answer; the figures count how
// often that happens separately, so that its rule is compared on the same
// operations as the others.) The CLI polls several ids one after the other,
// as _poll_multiple_requests_until_terminal does; the others poll each id
// on its own schedule, concurrently.
var baselines = []strategy{
	{"tp-cli", sequentially(cliRule)},
	{"fixed-1s", concurrently(fixedInterval(time.Second, false))},
	{"aws-waiter", concurrently(awsWaiter(2*time.Second, 120*time.Second))},
	{"hcloud-500ms", concurrently(fixedInterval(500*time.Millisecond, true))},
}

func sequentially(f waitOne) func(context.Context, *gen.ClientWithResponses, []string, *rand.Rand) error {
	return func(ctx context.Context, c *gen.ClientWithResponses, ids []string, rng *rand.Rand) error {
		for _, id := range ids {
			if err := f(ctx, c, id, rng); err != nil {
				return err
			}
		}
		return nil
	}
}

// concurrently gives each id its own goroutine and its own random source
// (drawn in order from rng, so that scheduling cannot change the draws).
func concurrently(f waitOne) func(context.Context, *gen.ClientWithResponses, []string, *rand.Rand) error {
	return func(ctx context.Context, c *gen.ClientWithResponses, ids []string, rng *rand.Rand) error {
		errs := make([]error, len(ids))
		var wg sync.WaitGroup
		for i, id := range ids {
			r := rand.New(rand.NewPCG(rng.Uint64(), uint64(i)))
			wg.Go(func() { errs[i] = f(ctx, c, id, r) })
		}
		wg.Wait()
		return errors.Join(errs...)
	}
}

var errNoTerminal = errors.New("context ended before a terminal status")

// poll sends one GET /request/info and reports whether the answer carries a
// terminal status, and its raw Retry-After.
func poll(ctx context.Context, c *gen.ClientWithResponses, id string) (terminal bool, retryAfter string, err error) {
	r, err := c.GetRequestInfoWithResponse(ctx, id)
	if err != nil {
		return false, "", err
	}
	if r.JSON200 != nil {
		switch r.JSON200.Status {
		case gen.RequestStatusCOMPLETED, gen.RequestStatusFAILED:
			return true, "", nil
		}
	}
	return false, r.HTTPResponse.Header.Get("Retry-After"), nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errNoTerminal
	}
}

// cliRule is the official tp CLI (_poll_request_until_terminal): poll at
// once, then sleep max(1, int(Retry-After)) seconds, or 2 s when the header
// is absent or not an integer (an HTTP-date, "2.5").
func cliRule(ctx context.Context, c *gen.ClientWithResponses, id string, _ *rand.Rand) error {
	for {
		done, ra, err := poll(ctx, c, id)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		d := 2 * time.Second
		if ra != "" {
			// Python's int() strips white space and takes a sign.
			if n, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil {
				d = time.Duration(max(1, n)) * time.Second
			}
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// fixedInterval polls every d whatever the server says. hcloud-go's action
// waiter (ConstantBackoff(500ms), its default) sleeps before each poll,
// the first included.
func fixedInterval(d time.Duration, sleepFirst bool) waitOne {
	return func(ctx context.Context, c *gen.ClientWithResponses, id string, _ *rand.Rand) error {
		if sleepFirst {
			if err := sleep(ctx, d); err != nil {
				return err
			}
		}
		for {
			done, _, err := poll(ctx, c, id)
			if err != nil {
				return err
			}
			if done {
				return nil
			}
			if err := sleep(ctx, d); err != nil {
				return err
			}
		}
	}
}

// awsWaiter is the AWS SDK for Go v2 generated waiter: first attempt at
// once, then smithy-go's waiter.ComputeDelay: minDelay*2^(attempt-1)
// capped at maxDelay, drawn uniformly from [minDelay, that), Retry-After
// ignored.
func awsWaiter(minDelay, maxDelay time.Duration) waitOne {
	ceiling := int64(math.Log(float64(maxDelay/minDelay))/math.Log(2) + 1)
	return func(ctx context.Context, c *gen.ClientWithResponses, id string, rng *rand.Rand) error {
		for attempt := int64(1); ; attempt++ {
			done, _, err := poll(ctx, c, id)
			if err != nil {
				return err
			}
			if done {
				return nil
			}
			delay := maxDelay
			if attempt <= ceiling {
				delay = minDelay * time.Duration(int64(1)<<(attempt-1))
			}
			if delay != minDelay {
				delay = minDelay + time.Duration(rng.Int64N(int64(delay-minDelay)))
			}
			if err := sleep(ctx, delay); err != nil {
				return err
			}
		}
	}
}
