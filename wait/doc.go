// Package wait polls TensorPool's asynchronous requests until they finish.
// The README (https://github.com/tensorpool/tensorpool-go#wait-for-requests)
// shows it in use; this documentation holds every rule.
//
// A mutating call answers 202 with request ids. Wait polls
// GET /request/info/{request_id} until the request is COMPLETED (nil error)
// or FAILED (ErrFailed); WaitAll waits for several ids at once; Step polls
// once and says when to poll next. Each returns the last info seen, and an
// *Error naming the id, that info and the cause.
//
// # Schedule
//
// The first poll goes at once, within the Poller's pace (below). The next
// comes after the answer's Retry-After (delta-seconds, "2.5" tolerated, or an
// HTTP-date measured against the answer's Date), within WithInterval's
// bounds (1 s to 10 min: a hint clamped to 10 min is the one case of an
// earlier poll, and the Update says so). Without one, it comes after 2 s, as
// the official CLI's, or, after failures or a 429/503, after a backoff of
// 1 s, 2 s, 4 s, ... up to 30 s. Jitter of 0 to 25 % is only ever added.
//
// Before ctx's deadline, the delay is shortened so that one more poll fits,
// never earlier than the Retry-After (or the minimum interval). If even that,
// or the pace's next slot, does not fit, the wait ends at once with an error
// wrapping context.DeadlineExceeded.
//
// # Pace
//
// All polls of a Poller (its Wait, WaitAll and Step calls) share one pace.
// Until the first 429 or 503 it slows none: one poll goes first, then one
// more may be in flight per answer (TCP's slow start), up to 8
// (WithConcurrency), which over a 100 ms round trip carry 80 polls a
// second, 160 ids at Retry-After 2 s.
//
// A 429 or a 503 is news about the server, not about one request. The
// first 429 sets the pace to 5 polls a second, growing along a curve from
// the Poller's creation (25 % a second at first, without bound after about
// 7 s) until the next; answers to polls sent in the half second after it
// (the bursts of Pollers starting together) do not move it. A first 503,
// or one after 2 s with nothing accepted (an outage), sets it to one poll
// per 2 s, growing the same way. Each later 429 or 503 cuts it to 0.85
// times the rate sent, never below one poll per 2 s (in the Poller's first
// second, down the curve); it then grows back by about 0.03·√r polls a
// second every second of polling, r the rate cut from, and much slower
// below 1.5 polls a second. A cut or a reset also delays the poll waiting
// for its slot, and only an answer to a poll sent a slot of the new pace
// after the cut moves it again. Pollers on one key so tend towards equal
// shares (BENCHMARKS.md measures how close); pace.go's constants give the
// exact laws.
//
// The rate-limit fields of the latest answer bound the pace too:
// RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers-10),
// RateLimit-Limit, -Remaining and -Reset (its older drafts),
// X-RateLimit-Remaining and -Reset (a reset past ten years of seconds is a
// Unix time). The pace stays at 0.98 times the least rate they state
// (quota ÷ window, (remaining + 1) ÷ reset) and, when nothing remains,
// sends nothing before the reset (10 min at most). The pace only delays
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
// Every answer, through whatever client, goes through tensorpool.Check.
// Server text in errors and Updates is cleaned (control characters escaped,
// 1 KiB per field). Through tensorpool.NewClient's client, errors show no
// form of the API key; an Update's Message and Info are data, as sent but
// for an exact echo of the key. Only this package repeats a poll.
package wait
