// Package tensorpool is the Go client for the TensorPool API.
//
// NewClient returns the client that package gen generates from the
// vendored OpenAPI document. It adds authentication, validation, retries,
// a cap on response bodies and redaction of the API key. Its methods return
// an error for every answer except a success that the spec declares.
// Package wait polls asynchronous requests until they finish. Package
// tensorpooltest is an in-memory API for tests. The README is the guide;
// this documentation holds the exact rules.
//
// # Authentication
//
// The key comes from WithAPIKey, or else from $TENSORPOOL_KEY. It is sent
// as "Authorization: Bearer <key>", and only to the scheme, host and port
// of the base URL. Redirects to any other origin lose it, even where
// net/http would keep it (a subdomain, another port). Only a GET or a HEAD
// follows redirects. For any other method, the redirect is the answer, an
// *APIError: net/http would send it again as a GET.
//
// No value you can reach holds the key: not the client, a response, its
// request, its context or an error. Error texts, log lines, and an error
// response's body and headers show "[REDACTED]" in its place. That covers
// the key as it is, percent-encoded, and JSON- or Go-escaped. It also
// covers a key cut short: its first 4 characters or more, at the end of a
// text or of a JSON string, if the key has 8 or more. errors.Is still finds
// the cause of a redacted error. A successful response reaches you as the
// server sent it, but for the whole key, in any of those forms: the
// generated parser, its errors and the typed data never see it.
// NewClient refuses a key shorter than 4 characters, because no rule could
// tell it from a word. A key shorter than 8 characters is replaced only
// where no letter or digit touches it. No URL in an error or a log line
// shows a user name or password.
//
// # Errors
//
// A method returns a nil error only for a success status that its
// operation declares. If that success has a JSON body, the body is there
// and its typed field (JSON200, JSON202) is set. An exact status wins over
// "2XX". "default" counts only for an operation that declares no 2xx.
// Every other answer is an error, with a nil response:
//
//   - an *APIError for a status outside 2xx;
//   - a *DecodeError for any other 2xx: a status the operation does not
//     declare, or a body that is not the declared JSON, is cut short or is
//     too large.
//
// A JSON body whose values do not fit the generated types fails in the
// generated parser, with encoding/json's error. The client lower-cases a
// response's media type, so that the generated parsers find "json" in any
// case. A response that HTTP gives no body (to a HEAD, a 204 or a 205)
// reaches the parser without its Content-Type, so it decodes no JSON. A
// request that got no response fails with net/http's *url.Error. Check
// applies the same rules to the results of any other client, such as a raw
// gen client or a mock.
//
// # Validation
//
// Each method knows its operation, and what the spec says of it, from a
// table that scripts/genops generates from gen's request builders and the
// spec. The method puts the operation in the request's context, where a
// request editor, a RoundTripper or a logger reads it with
// OperationFromContext. Before it builds the request, it checks each path
// argument as gen will send it. A value that is empty, "." or "..", or that
// holds '/', '\' or a control character, fails with ErrInvalidRequest: it
// could address another path. Package wait applies the same rule to request
// ids. Then the client checks what the spec states of the request: the
// enums and patterns of path parameters, and the required fields, enums,
// patterns and list lengths of a JSON body, through every $ref and allOf. A
// request that breaks one fails with ErrInvalidRequest, which names the
// field. Nothing is sent in either case. WithoutClientValidation turns the
// second check off.
//
// # Retries
//
// The client retries above http.Client, and only when sending a request
// again cannot repeat an effect on the server:
//
//	what happened                            GET, HEAD   POST, DELETE, PUT, PATCH
//	429 Too Many Requests                    retried     retried (refused before processing)
//	408, 425, 500, 502, 503, 504             retried     not retried
//	no connection made (dial, DNS)           retried     retried (the request never left)
//	connection lost once made, or while      retried     not retried (it may have been processed)
//	  reading the body (reset, EOF, HTTP/2
//	  reset or GOAWAY, transport timeouts)
//	any other status (3xx, 4xx, 501, ...)    not retried not retried
//	the context or WithTimeout ended         not retried not retried
//	any other error (TLS, "no such host",    not retried not retried
//	  a body too large, an invalid header,
//	  a redirect loop, a transport's own)
//
// A request is sent at most 1 + RetryPolicy.MaxRetries times. Before a
// retry, the client waits as the response's Retry-After says (seconds or an
// HTTP-date). A Retry-After longer than RetryPolicy.MaxRetryAfter is not
// waited for: the response is returned at once, and APIError.RetryAfter
// says when to come back. Without Retry-After, retry n waits a random time
// between d/2 and d, where d is MinBackoff·2^(n-1), at most MaxBackoff.
// WithTimeout and the context bound the call as a whole. No wait starts
// that would end after either deadline. A body is sent again through
// http.Request.GetBody; a streamed body without one is sent once.
//
// Package wait's polls are sent exactly once: wait's own schedule decides
// what to poll again. Authentication, validation, the body cap and logging
// still apply to them.
package tensorpool
