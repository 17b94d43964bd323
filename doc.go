// Package tensorpool is the Go client for the TensorPool API: GPU clusters,
// shared storage volumes and jobs.
//
// The README (https://github.com/tensorpool/tensorpool-go#readme) is the
// guide, with examples: install, authenticate, make a call, wait, errors,
// retries, testing with tensorpooltest. This documentation is the
// reference: the exact rules behind each of those.
//
// The typed client is generated from the vendored OpenAPI document into
// package gen; package wait polls asynchronous requests until they finish;
// package tensorpooltest is an in-memory TensorPool engine for tests.
//
// This package is the front door: NewClient returns the generated client
// configured with authentication, safe retries, a response size cap,
// redaction and client-side validation, and Check turns any response but
// the success the spec declares into a typed error.
//
//	c, err := tensorpool.NewClient() // key from $TENSORPOOL_KEY
//	if err != nil {
//		return err
//	}
//	resp, err := tensorpool.Check(c.StorageAttachWithResponse(ctx, gen.StorageAttachRestRequest{
//		StorageID: "s-abc", ClusterIDs: []string{"c-123"},
//	}))
//	if tensorpool.IsConflict(err) { ... }
//
// # Authentication
//
// The API key comes from WithAPIKey, else from the TENSORPOOL_KEY environment
// variable (the official tp CLI's convention). It is sent as
// "Authorization: Bearer <key>" by the client's only RoundTripper, only to
// the scheme, host and port of the base URL: a redirect to anywhere else
// never carries it, even where net/http itself would keep the header (a
// subdomain, another port, https to http). A GET or HEAD follows redirects;
// any other request never does: net/http would replay it as a GET, so the
// call fails with a *RedirectError (ErrRedirected) naming the status and
// the Location. The base URL is WithBaseURL, else TENSORPOOL_ENGINE,
// else https://engine.tensorpool.dev; plain http is refused unless the host
// is a loopback IP literal or exactly "localhost" (see WithBaseURL), or
// WithInsecureHTTP is given.
//
// The key lives only in closures: no value a caller can reach (the client,
// a response, its request and that request's context, an error) prints it
// with any fmt verb. One redaction rule applies to every body (2xx
// included), header and error text the client hands on: a printed form of
// the key (as is, percent-encoded, JSON- or Go-escaped) is replaced by
// "[REDACTED]", and so is the start of one (4 characters or more) ending a
// text cut short; a text whose JSON \u escapes spell the key is withheld
// whole ("[REDACTED]"). A base URL carrying userinfo is refused
// (ErrInvalidBaseURL), and no URL printed in an error or a log line shows
// userinfo, user name included.
//
// # Errors
//
// Generated methods return the response whatever its status. Check returns
// nil only for a success status the spec declares for the operation whose
// typed body decoded (the asynchronous operations answer 202 Accepted,
// which means queued, not done); an *APIError for any status outside
// 200-299, carrying the status, method, path, the server's message
// (FastAPI's "detail", or "message", "error", "external_message"), the 422
// field errors and Retry-After; a *DecodeError for any other 2xx. (A 422 whose JSON is not FastAPI's validation shape, such
// as {"detail": "text"}, would make the generated parser fail without a
// status; the client relabels such a body text/plain so that Check
// reports it as an *APIError.) Helpers: IsNotFound, IsConflict, IsRateLimited,
// IsUnauthorized, IsForbidden, IsBadRequest, IsUnprocessable, IsServerError,
// StatusCode.
//
// A 2xx without the declared typed body gives a *DecodeError
// (ErrMalformedResponse), never a bare encoding/json error: with status,
// method, path, Content-Type and the body's start for a status the spec
// does not declare or a body not labelled JSON; with only the cause when
// the generated parser failed (it returns no response then). Package wait
// treats it as a transient failure and polls again.
//
// Other errors: ErrNoAPIKey, ErrInvalidAPIKey, ErrInvalidBaseURL and
// ErrInsecureBaseURL from NewClient;
// *InvalidRequestError (ErrInvalidRequest) before sending, for a rule of the
// spec or a header HTTP cannot carry; *ResponseTooLargeError
// (ErrResponseTooLarge) for a 2xx body past the cap; *RedirectError
// (ErrRedirected) for a redirect answered to a mutating request; an error naming
// the request and wrapping the cause (io.ErrUnexpectedEOF) when the
// connection drops while a 2xx body is read (for any other status, Check
// reports the *APIError with Truncated set); and net/http's errors (wrapped
// in *url.Error) when no response arrived.
//
// # Retries
//
// The client retries (above http.Client, in the request doer the generated
// client calls) only when sending a request again cannot repeat an effect
// on the server:
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
// Connection errors are those known to be transient (an allow-list, the
// same one package wait uses): EOF, a reset, refused, aborted or timed-out
// connection, a broken pipe, an unreachable network, a *net.OpError (but not
// a TLS alert), a timeout (net.Error), a DNS failure other than "no such
// host", an HTTP/2 stream reset, connection error or GOAWAY, net/http's
// "unexpected EOF reading trailer", "server closed idle connection" and
// "transport connection broken" (a response cut in its status line or
// headers, "malformed HTTP response", a textproto.ProtocolError), and a body
// lost mid-way whatever the cause. An error is classified before the key is
// scrubbed from it, and errors.Is still sees its cause afterwards. A 2xx with Content-Type
// "Application/JSON" (any case) is decoded: the media type is lower-cased
// for the generated parsers, which look for "json" case-sensitively.
//
// Attempts: at most 1 + RetryPolicy.MaxRetries (default 3 retries, so 4
// attempts). Waits: the Retry-After (seconds or an HTTP-date) of the response
// being retried, when it has one; a Retry-After longer than RetryPolicy.MaxRetryAfter
// (default 30 s) is not waited for: the response is returned at once, its
// APIError.RetryAfter telling the caller when to come back. Without
// Retry-After, the wait before retry n is drawn from [d/2, d] with
// d = MinBackoff·2^(n-1) capped at MaxBackoff (defaults 0.5 s and 8 s: waits
// of 0.25-0.5 s, 0.5-1 s, 1-2 s). Time: a call as a whole (all attempts, the waits, reading the
// body) is bounded by WithTimeout (default 60 s) and by its context; no wait
// starts that would end after either deadline: the last response or error is
// returned instead. Bodies are replayed through http.Request.GetBody, which
// the generated methods set; a request whose body cannot be replayed (a
// streamed io.Reader passed to a ...WithBody method, when validation has not
// buffered it) is sent once.
//
// # Composing with package wait
//
// Package wait polls GET /request/info/{request_id} with its own
// Retry-After-aware schedule, and marks its requests with an internal context
// value; the client sends such requests exactly once, whatever the
// response. A wait that polls N times therefore makes N requests, never N×4;
// wait's own policy alone decides what to retry and when. Authentication,
// the body cap, validation and logging still apply to those requests.
//
// # Hardening
//
// Response bodies are read through a cap (WithMaxResponseBytes, default
// 8 MiB), by the client (above http.Client), into memory. A 2xx body past it fails with
// *ResponseTooLargeError (at once if Content-Length announces it), never a
// silent truncation; any other status keeps its body's start (also when the
// connection drops mid-body) and Check reports an *APIError with Truncated
// set, so the status is never lost. Requests that break a rule the spec states (storage_id must
// start with "s-", on POST /storage/attach and DELETE /storage/{storage_id};
// cluster_ids must have exactly one element) fail with *InvalidRequestError
// before anything is sent (see WithoutClientValidation).
// WithLogger logs attempts and retries with slog, never headers or bodies.
package tensorpool
