// Package tensorpool is the front door of the Go client for the TensorPool
// API. It has the operations of the vendored spec: attach storage to a
// cluster, destroy storage and request info; the rest (detach, clusters,
// jobs) arrive when the upstream spec is synced. NewClient returns the
// typed client that package gen generates from the vendored OpenAPI
// document, with authentication, retries, a body cap, redaction and
// validation, whose methods return an error for every answer but a success
// the spec declares. Package wait polls asynchronous requests until they
// finish; package tensorpooltest is an in-memory engine for tests. The
// README is the guide; this documentation holds the exact rules.
//
// # Authentication
//
// The key (WithAPIKey, else $TENSORPOOL_KEY) is sent as "Authorization:
// Bearer <key>" only to the scheme, host and port of the base URL, never
// along a redirect elsewhere, even where net/http would keep the header (a
// subdomain, another port, https to http). Only a GET or HEAD follows
// redirects: net/http would replay any other method as a GET, so its
// redirect is the answer, an *APIError.
//
// The key lives only in closures: no value a caller can reach (the client,
// a response, its request and that request's context, an error) prints it
// with any fmt verb. Diagnostics (error texts, an error response's body and
// headers, log lines) show "[REDACTED]" for any printed form of the key (as
// is, percent-encoded, JSON- or Go-escaped, JSON escapes decoded) and for
// its start (4 characters or more, of a key of 8 or more) ending a text or
// a JSON string, a key cut short; errors.Is still sees the cause of an
// error so redacted. A successful response reaches the caller as the
// server sent it, but for an exact echo of the whole key. NewClient
// refuses a key shorter than 4 characters, which no rule could tell from a
// word; one shorter than 8 is replaced only where it stands alone (no
// letter or digit beside it), so that it garbles no word. No URL in an error or a log line shows userinfo.
//
// # Errors
//
// A method returns a nil error only for a success status the operation
// declares, with the declared JSON body if it declares one (its typed
// field, JSON200 or JSON202, is then set); for "2XX" or, when the operation
// declares no 2xx, "default", likewise. Every other answer is an error, with
// a nil response: an *APIError for a status outside 2xx, a *DecodeError for
// any other 2xx (an undeclared status; a body that is not the declared
// JSON, is cut short or is too large). A JSON body whose values do not fit
// the generated types fails in the generated parser, with encoding/json's
// error. Check applies the same rules to any other client's results.
//
// Before sending, a request fails with ErrInvalidRequest, naming what is
// wrong, when it breaks a constraint of the spec (WithoutClientValidation
// turns that off) or when a path parameter is empty, "." or "..", or
// contains '/', '\' or a control character: a value that could address
// another route (package wait refuses such request ids too). The generated
// builders resolve dot segments, so the client sees an empty, "." or ".."
// value only in the path it makes: one that fits no operation (refused), or
// another operation's (GET /items/ for GET /items/{id} with ""), which it
// tells apart by the generated method that sends the request. A request
// that got no response fails with net/http's *url.Error. For the generated
// parsers, a response's media type is lower-cased.
//
// # Retries
//
// The client retries, above http.Client, only when sending a request again
// cannot repeat an effect on the server:
//
//	what happened                          GET, HEAD   POST, DELETE, PUT, PATCH
//	429 Too Many Requests                  retried     retried (refused before processing)
//	408, 425, 500, 502, 503, 504           retried     not retried
//	connection failed before connecting    retried     retried (the request never left)
//	  (dial or DNS error, no connection)
//	connection failed after connecting     retried     not retried (it may have been processed)
//	  (reset, EOF, HTTP/2 stream reset or
//	  GOAWAY, a response cut in its status
//	  line or headers, the transport's own
//	  timeouts such as ResponseHeaderTimeout)
//	connection lost while reading the      retried     not retried
//	  body (the client reads it, up to
//	  the cap, before returning)
//	any other status (3xx, 4xx, 501, ...)  not retried not retried
//	the call's context cancelled or its    not retried not retried
//	  deadline (WithTimeout) passed
//	any other error: TLS (alerts too),     not retried not retried
//	  certificates, "no such host", body
//	  too large, an invalid header, an
//	  unsupported scheme, a redirect loop,
//	  a custom transport's own error (it
//	  would fail the same way again)
//
// A request is sent at most 1 + RetryPolicy.MaxRetries times. The wait is
// the response's Retry-After (seconds or an HTTP-date); one longer than
// RetryPolicy.MaxRetryAfter is not waited for: the response is returned at
// once, APIError.RetryAfter saying when to come back. Without it, retry n
// waits a random time in [d/2, d], d = MinBackoff·2^(n-1) capped at
// MaxBackoff. WithTimeout and the context bound the call as a whole, and no
// wait starts that would end after either deadline. Bodies are replayed
// through http.Request.GetBody; a streamed body without one is sent once.
//
// Requests from package wait are sent exactly once: wait's own schedule
// alone decides what to poll again, so N polls make N requests.
// Authentication, the body cap, validation and logging still apply.
package tensorpool
