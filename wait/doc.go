// Package wait polls TensorPool's asynchronous requests until they finish.
//
// A mutating call (cluster create, storage attach, ...) answers 202 with one
// or more request ids. Wait polls GET /request/info/{request_id} until the
// request is COMPLETED (nil error) or FAILED (a *FailedError carrying the
// final info); WaitAll waits for several ids at once; Step polls once and
// says when to poll next, for controllers that requeue instead of blocking.
// In every case the last request info seen is returned (nil if none).
//
// # Schedule
//
// The first poll is sent at once: it finds requests already finished and
// surfaces a bad id, key or permission before any sleep. After each poll:
//
//   - with a usable Retry-After (delta-seconds, "2.5" tolerated, or an
//     HTTP-date in any RFC 9110 form, measured against the response's Date
//     header), that delay, raised to the minimum interval (1 s) or clamped
//     to the maximum (10 min; the one case of an earlier poll, which the
//     Update says): WithInterval;
//   - without one, 2 s, the official CLI's interval: never more polls than
//     the CLI, and completion noticed at most 2.5 s late; after failures, a
//     backoff of 1 s, 2 s, 4 s, ... up to 30 s;
//   - plus a random jitter of 0 to 25 %, only ever added, never past the
//     maximum interval.
//
// A 429, a 503 or a refused connection is news about the server, not about
// one request: every poll of the Poller (all its Wait, WaitAll and Step
// calls) holds until that answer's Retry-After has passed or, without one,
// a backoff shared by the Poller (1 s, 2 s, ... 30 s, plus jitter); then one
// poll at a time probes the server, and the first other answer (a success,
// typically) releases the hold. At most 8 polls are in flight at once
// (WithConcurrency).
//
// If ctx's deadline comes before the next poll is due, the delay is
// shortened so that one more poll comes before it, though never earlier
// than the Retry-After (or, without one, the minimum interval); if even that
// does not fit, Wait returns at once with an error wrapping
// context.DeadlineExceeded. Step leaves the deadline to its caller.
//
// # Failures
//
//   - Transient: the connection errors the tensorpool client itself retries
//     (package tensorpool documents the list), 408, 425, 429, 500, 502, 503,
//     504, a 2xx that is not the expected JSON, and an answer for another
//     request (ErrWrongRequest). The poll is repeated on the schedule
//     above; the 5th failure in a row (WithMaxFailures) ends the wait with
//     a *TransientError wrapping the last one.
//   - 404 within 10 s of the first poll, before the request was seen once,
//     is "not visible yet" and polled again (WithNotFoundGrace).
//   - Any other status fails at once, wrapping a *tensorpool.APIError; so
//     does every other error from the Client (TLS, a redirect loop, a body
//     past the client's cap, ...), wrapped with the id. A nil response or
//     body with a nil error is ErrBrokenClient.
//   - A status outside the spec's enum fails with an *UnknownStatusError
//     unless WithUnknownStatusAsRunning. RETRYING is polled on.
//   - An id that could address another route fails with
//     ErrInvalidRequestID before any request.
//   - When ctx ends, the error wraps ctx's error and names the last status
//     and failure seen; an answer that arrives as ctx ends is still used.
//
// Every answer goes through tensorpool.Check, the check of the root
// package: one body cap, one media-type rule, one redaction of the API key
// (done by tensorpool.NewClient's transport). Server text in any error or
// Update of this package is also cleaned: control characters escaped, each
// field at most 1 KiB, with a raw gen client too.
//
// Only the GET is ever retried; each poll is marked so that the tensorpool
// transport sends it once and retries do not multiply.
//
// # Several requests and progress
//
// WaitAll polls every id on its own schedule, exactly as Wait would, with
// one scheduler and at most the concurrency bound of workers: no goroutine
// per id, so 10,000 ids cost a small record each. The errors are joined;
// WithFailFast stops the others at the first failure (ErrStopped).
// WithProgress receives an Update after every poll and when a wait ends
// between polls.
package wait
