// Package wait polls TensorPool's asynchronous requests until they finish.
//
// A mutating call (cluster create, storage attach, ...) answers 202 with one
// or more request ids. Wait polls GET /request/info/{request_id} until the
// request is COMPLETED or FAILED, honouring the server's Retry-After:
//
//	p := wait.New(client) // a *gen.Client or *gen.ClientWithResponses
//	info, err := p.Wait(ctx, requestID)
//	var failed *wait.FailedError
//	switch {
//	case errors.As(err, &failed): // the request FAILED; failed.Info says why
//	case err != nil:              // polling could not tell (ctx, auth, network, ...)
//	}
//
// WaitAll waits for several ids at once (a storage attach returns one per
// cluster); Step polls once and returns when to poll next, for controllers
// that requeue instead of blocking.
//
// # Schedule
//
// The first poll is sent at once: Wait is given an id, not the 202 response,
// so it has no server hint yet; one immediate GET finds requests that are
// already finished (fast operations, or a wait resumed after a restart) and
// surfaces a bad id, key or permission before any sleep.
//
// After each poll the next delay is:
//
//   - the response's Retry-After, if usable: delta-seconds (a fraction such
//     as "2.5" is tolerated) or an HTTP-date in any of the three RFC 9110
//     forms, measured against the response's Date header when present, so a
//     skewed local clock does not matter. A hint below the minimum interval
//     (1 s) is raised to it, and one above the maximum interval (10 min) is
//     clamped to it: that is the only case in which a poll comes earlier than
//     the server asked, and the progress Update says so. Empty, negative and
//     unparseable values are ignored, never an error;
//   - otherwise exponential backoff: 1 s, 2 s, 4 s, ... up to 30 s
//     (WithMinInterval, WithMaxBackoff), restarted whenever a hint is seen;
//   - plus a random jitter of 0 to 25 % of that delay, only ever added, so
//     that many clients spread out without polling earlier than asked; the
//     result never exceeds the maximum interval.
//
// If the context has a deadline that comes before the next poll is due, the
// delay is shortened (Reason ReasonTrimmed) so that one more poll comes
// before it, though never earlier than the server's Retry-After (raised to
// the minimum interval) or, without one, the minimum interval. Only when even
// that does not fit does Wait return, at once, with an error wrapping
// context.DeadlineExceeded instead of sleeping only to time out. Step leaves
// the deadline to its caller. Every computation saturates: no option or
// Retry-After, however large, overflows into a shorter delay.
//
// # Failures
//
//   - FAILED: a *FailedError (errors.Is(err, ErrFailed)) carrying the final
//     info; its message names the id, the request type and external_message.
//   - Transient: the connection errors the tensorpool client itself retries
//     (one allow-list, its package documentation lists it: resets, EOF,
//     timeouts, HTTP/2 stream resets, a body lost mid-way, ...), 408, 425,
//     429, 500, 502, 503, 504, and a 200 whose body is not the expected
//     JSON. The GET is sent again after the response's Retry-After or backoff; the 5th consecutive
//     failure (WithMaxFailures) ends the wait with a *TransientError wrapping
//     the last one. A successful poll resets the count.
//   - 404: within 10 s of the first poll (WithNotFoundGrace), and only until
//     the request has been seen once, it is taken for "not visible yet" and
//     polled again; after that it fails.
//   - Any other status, 401 and 403 included, fails at once, after one
//     request. HTTP failures wrap a *tensorpool.APIError (errors.As).
//   - Every other error from sending fails at once, wrapped with the id: it
//     would recur on every poll. TLS alerts, TLS and certificate errors, an
//     unsupported URL scheme, a redirect loop, a custom transport's own
//     error, a body past a cap (tensorpool.ErrResponseTooLarge: the client's
//     WithMaxResponseBytes, or wait's own 1 MiB for a 200),
//     tensorpool.ErrRedirected, tensorpool.ErrInvalidRequest, errors from
//     building the request. A Client returning a nil response or body without
//     an error fails with ErrBrokenClient.
//   - A status outside PENDING, PROCESSING, RETRYING, COMPLETED, FAILED
//     (including a missing one) fails with an *UnknownStatusError
//     (ErrUnknownStatus) carrying the info, unless
//     WithUnknownStatusAsRunning. RETRYING is the server retrying on its
//     side: it is reported through progress and polling goes on.
//   - An invalid id (empty, ".", "..", or containing '/', '\\' or a control
//     character) fails with ErrInvalidRequestID before any request: such an id
//     could address another route.
//   - A cancelled or expired context returns an error for which
//     errors.Is(err, context.Canceled) or errors.Is(err,
//     context.DeadlineExceeded) holds and whose message names the last status
//     seen and the last transient error. It is never nil. An answer that
//     arrives as ctx ends is still used: a COMPLETED or FAILED answer is
//     the result.
//
// In every case Wait also returns the last request info seen (nil if none).
//
// Only the GET is ever retried: this package never replays the mutating
// call. Each poll's context is marked with retryctx.WithoutTransportRetries,
// so the tensorpool transport sends it once and retries do not multiply.
//
// # Several requests
//
// WaitAll polls every id concurrently, each on its own schedule, exactly as
// Wait would alone. A Poller has at most 8 poll requests in flight at once
// (WithConcurrency), across all its calls; when more ids are due than that,
// the one due first is polled first. WaitAll holds no goroutine per id: one
// scheduler and at most that many workers, so waiting for 10,000 ids costs
// a small record each, not a stack each. By default every id is waited for
// and the errors are joined; WithFailFast stops the others at the first
// failure, cancelling their polls in flight, and gives each an error
// wrapping ErrStopped (not context.Canceled).
//
// # Progress
//
// WithProgress receives an Update after every poll: id, status, attempt,
// server message, the next delay and why it was chosen, and the poll's error.
// When ctx or WithFailFast ends a wait between polls, one last Update says so
// (Reason ReasonContext or ReasonStopped, with the error). Nothing in an
// Update or an error carries the API key.
package wait
