// Package tensorpool is the Go client for the TensorPool API: GPU clusters,
// shared storage volumes and jobs.
//
// The README (https://github.com/tensorpool/tensorpool-go#readme) is the
// guide: install, authenticate, make a call, wait, the table of errors,
// testing. This documentation holds the exact rules behind it.
//
// Package gen is the typed client generated from the vendored OpenAPI
// document; package wait polls asynchronous requests until they finish;
// package tensorpooltest is an in-memory TensorPool engine for tests. This
// package is the front door: NewClient returns the generated client with
// authentication, retries, a body cap, redaction and validation, and Check
// turns any response but the one the spec declares into a typed error.
//
// # Authentication
//
// The key (WithAPIKey, else $TENSORPOOL_KEY) is sent as "Authorization:
// Bearer <key>" only to the scheme, host and port of the base URL, never
// along a redirect elsewhere, even where net/http would keep the header (a
// subdomain, another port, https to http). A GET or HEAD follows
// redirects; any other method never does (net/http would replay it as a
// GET): the call fails with a *RedirectError.
//
// The key lives only in closures: no value a caller can reach (the client,
// a response, its request and that request's context, an error) prints it
// with any fmt verb. Every body (2xx included), header and error text the
// client hands on is scrubbed: a printed form of the key (as is,
// percent-encoded, JSON- or Go-escaped) becomes "[REDACTED]", and so does
// its start (4 characters or more) ending a text cut short; a text whose
// JSON \u escapes spell the key is withheld whole. No URL in an error or a
// log line shows userinfo.
//
// # Errors
//
// Check documents when it returns an *APIError or a *DecodeError
// (ErrMalformedResponse). Besides those and the README's table: the Err...
// variables of NewClient; *InvalidRequestError before sending, for a rule
// of the spec or a header HTTP cannot carry; an error wrapping the cause
// (io.ErrUnexpectedEOF) when the connection drops while a 2xx body is read
// (for another status, Check reports the *APIError with Truncated set);
// and net/http's *url.Error when no response arrived. For the generated
// parsers, a response's media type is lower-cased, and a JSON 422 that is
// not FastAPI's validation shape is relabelled text/plain (it would fail
// to parse and lose its status).
//
// # Retries
//
// The client retries, above http.Client, only when sending a request again
// cannot repeat an effect on the server:
//
//	what happened                          GET, HEAD   POST, DELETE, PUT, PATCH
//	429 Too Many Requests                  retried     retried (refused before processing)
//	502, 503, 504                          retried     not retried
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
//	any other status (400-428, 500, ...)   not retried not retried
//	the call's context cancelled or its    not retried not retried
//	  deadline (WithTimeout) passed
//	any other error: TLS (alerts too),     not retried not retried
//	  certificates, "no such host", body
//	  too large, an invalid header, an
//	  unsupported scheme, a redirect loop,
//	  a custom transport's own error (it
//	  would fail the same way again)
//
// Connection errors are those internal/transient knows to be transient,
// the allow-list package wait shares: EOF, reset, refused, aborted or
// timed-out connections, broken pipes, unreachable networks, *net.OpError
// (not a TLS alert), net.Error timeouts, DNS failures other than "no such
// host", HTTP/2 stream resets and GOAWAY, net/http's "server closed idle
// connection", "transport connection broken" and "malformed HTTP response",
// a textproto.ProtocolError, and a body lost mid-way. An error is
// classified before the key is scrubbed from it, and errors.Is still sees
// its cause afterwards.
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
// Requests from package wait carry an internal context mark and are sent
// exactly once: wait's own schedule alone decides what to poll again, so N
// polls make N requests. Authentication, the body cap, validation and
// logging still apply to them.
package tensorpool
