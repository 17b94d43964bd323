// Package retryctx marks requests whose caller retries them itself, so that
// the transport-level retries of package tensorpool do not multiply with the
// polling retries of package wait.
package retryctx

import "context"

type key struct{}

// WithoutTransportRetries returns a context whose requests the tensorpool
// transport sends once, leaving every retry decision to the caller.
func WithoutTransportRetries(ctx context.Context) context.Context {
	return context.WithValue(ctx, key{}, true)
}

// TransportRetriesDisabled reports whether ctx was marked by WithoutTransportRetries.
func TransportRetriesDisabled(ctx context.Context) bool { return ctx.Value(key{}) == true }
