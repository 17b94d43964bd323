// Package wait polls TensorPool's asynchronous requests until they finish. The README
// (https://github.com/tensorpool/tensorpool-go#wait-for-requests) shows it in use; this
// documentation holds every rule.
//
// A mutating call answers 202 with request ids. Wait polls GET /request/info/{request_id} until
// the request is COMPLETED (nil error) or FAILED (ErrFailed); WaitAll waits for several ids at
// once; Step polls once and says when to poll next. Each returns the last info seen, and an
// *Error naming the id, that info and the cause.
//
// # Schedule
//
// The first poll goes at once, within the Poller's pace (below). The next comes after the
// answer's Retry-After (delta-seconds, "2.5" tolerated, or an HTTP-date measured against the
// answer's Date), within WithInterval's bounds (1 s to 10 min: a hint clamped to 10 min is the
// one case of an earlier poll, and the Update says so). Without one, it comes after 2 s, as the
// official CLI's, or, after failures or a 429/503, after a backoff of 1 s, 2 s, 4 s, ... up to
// 30 s. Jitter of 0 to 25 % is only ever added.
//
// Before ctx's deadline, the delay is shortened so that one more poll fits, never earlier than
// the Retry-After (or the minimum interval). If even that, or the pace's next slot, does not
// fit, the wait ends at once with an error wrapping context.DeadlineExceeded.
//
// # Pace
//
// All polls of a Poller (its Wait, WaitAll and Step calls) share one pace. Until the first 429
// or 503, only WithConcurrency slows it: one poll goes first, then one more may be in flight
// per answer. A 429's or 503's Retry-After holds the whole Poller: no new poll, for any id,
// goes before it, and the first after it goes at once. A 429 or 503 also cuts the rate, by
// 30 % or to the rate accepted, once until a poll sent after the cut is answered; accepted polls let the rate climb
// back, in a second or so, or over 100 polls after a 429 without Retry-After below 34 polls a
// second (pace.go cites the law: the AWS SDK's, adapted). So refusals cost a batch their
// Retry-After and the climb: 200 ids whose first 20 answers are 429 with Retry-After: 1 take
// 24.3 s, not 5.0 s. Rate-limit fields (RateLimit and RateLimit-Policy, their older drafts,
// X-RateLimit-*) keep the rate below the one they state; a reset holds it. The pace only delays
// polls: each id still waits its own Retry-After.
//
// # Failures
//
//   - A 429 or a 503 asks to slow down: the id waits its Retry-After (or a
//     backoff), and it never counts towards WithMaxFailures. Under such
//     pressure only ctx ends a wait: give it a deadline.
//   - Transient failures are polled again until the 5th in a row
//     (WithMaxFailures) ends the wait with ErrTooManyFailures: the connection
//     errors the tensorpool client retries (a refused one too, so a wrong base
//     URL fails within seconds), 408, 425, 500, 502, 504, a 2xx that is not
//     the expected JSON, and ErrWrongRequest.
//   - 404 before the request was seen is "not visible yet" (WithNotFoundGrace).
//   - Any other status fails at once, wrapping a *tensorpool.APIError,
//     whether or not its body decodes; so does any other error of the Client.
//   - RETRYING is polled on; a status outside the spec's enum is
//     ErrUnknownStatus (see WithUnknownStatusAsRunning).
//   - When ctx ends, the error wraps ctx's error and names the last status
//     and failure seen; an answer arriving as ctx ends is still used.
//
// Every answer, through whatever client, goes through tensorpool.Check. Server text in errors
// and Updates is cleaned (control characters escaped, 1 KiB per field). Through
// tensorpool.NewClient's client, errors show no form of the API key; an Update's Message and
// Info are data, as sent but for the whole key, in any escaped form. Only this package repeats
// a poll.
package wait
