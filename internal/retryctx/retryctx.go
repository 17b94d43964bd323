// Package retryctx marks package wait's polls, so that the tensorpool
// client's own retries do not multiply with wait's polling, and wait checks
// each answer itself (with tensorpool.Check, the client's one response
// check), whatever client it polls through.
package retryctx

import "context"

type key struct{}

// Poll returns a context whose requests the tensorpool client sends once
// and returns as answered, whatever the status: every retry decision and
// the response check are the caller's.
func Poll(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// IsPoll reports whether ctx was marked by Poll.
func IsPoll(ctx context.Context) bool { return ctx.Value(key{}) == true }
