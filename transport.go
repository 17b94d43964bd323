package tensorpool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/mediatype"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
)

// ErrResponseTooLarge is matched (errors.Is) by the error a response body
// read fails with once it passes the cap set by WithMaxResponseBytes.
var ErrResponseTooLarge = errors.New("tensorpool: response body too large")

// ResponseTooLargeError reports a response body past the cap
// (WithMaxResponseBytes). The generated ...WithResponse methods return it as
// their error.
//
// Only a 2xx response fails this way: the body of any other status is cut
// at the cap instead, and Check reports it as an *APIError with Truncated
// set, so that its status is never lost.
type ResponseTooLargeError struct {
	StatusCode int    // the response's HTTP status (2xx)
	Method     string // request method
	Path       string // request path, without host or query
	Limit      int64  // the cap, in bytes
}

// Error implements error.
func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("tensorpool: %s %s: %d response body larger than %d bytes (see WithMaxResponseBytes)", e.Method, e.Path, e.StatusCode, e.Limit)
}

// Is makes errors.Is(err, ErrResponseTooLarge) hold.
func (e *ResponseTooLargeError) Is(target error) bool { return target == ErrResponseTooLarge }

// ErrNilResponse is returned when the HTTP transport or request doer given
// to NewClient (WithHTTPClient, WithClientOptions) returns neither a
// response nor an error.
var ErrNilResponse = errors.New("tensorpool: the HTTP transport returned neither a response nor an error")

// keyCtxKey carries the key (as a secret) in the context of resp.Request,
// so that NewAPIError can scrub it from what the server echoed.
type keyCtxKey struct{}

// truncatedCtxKey marks (in the context of resp.Request) a non-2xx response
// whose body was cut at the cap, for NewAPIError.
type truncatedCtxKey struct{}

// transport is the http.RoundTripper NewClient installs: it authenticates
// requests to the base URL's origin, retries what is safe to retry, caps
// response bodies and logs. It holds the key, so it prints redacted.
type transport struct {
	base         http.RoundTripper // nil means http.DefaultTransport
	origin       *url.URL          // scheme://host[:port][/path] the key may be sent to
	key          secret
	userAgent    string
	retry        RetryPolicy
	maxBodyBytes int64
	logger       *slog.Logger
}

// Format implements fmt.Formatter, with the key redacted.
func (t transport) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "tensorpool.transport{origin:%q key:%q retry:%+v maxBodyBytes:%d}", urlString(t.origin), t.key.String(), t.retry, t.maxBodyBytes)
}

// LogValue implements slog.LogValuer, with the key redacted.
func (t transport) LogValue() slog.Value {
	return slog.StringValue(fmt.Sprint(t))
}

func (t *transport) baseRT() http.RoundTripper {
	if t.base == nil {
		return http.DefaultTransport
	}
	return t.base
}

// sameOrigin reports whether u has the base URL's scheme, host and port:
// the only place the key is sent.
func (t *transport) sameOrigin(u *url.URL) bool {
	return t.origin != nil && strings.EqualFold(u.Scheme, t.origin.Scheme) && strings.EqualFold(u.Host, t.origin.Host)
}

// RoundTrip implements http.RoundTripper. The response it returns holds its
// whole body in memory (at most the cap): the body is read here, so that a
// connection lost while reading it is retried like any other connection
// error (GET, HEAD), and a 2xx that claims JSON but is not is reported with
// its status (*DecodeError).
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	maxRetries := t.retry.MaxRetries
	if retryctx.TransportRetriesDisabled(ctx) {
		// Package wait polls with its own Retry-After-aware schedule: one
		// attempt here, so the two never multiply.
		maxRetries = 0
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		maxRetries = 0 // the body cannot be sent twice
	}
	for attempt := 1; ; attempt++ {
		out, err := t.prepare(req, attempt)
		if err != nil {
			return nil, err
		}
		var connected atomic.Bool
		out = out.WithContext(httptrace.WithClientTrace(out.Context(), &httptrace.ClientTrace{
			GotConn: func(httptrace.GotConnInfo) { connected.Store(true) },
		}))
		start := time.Now()
		resp, err := t.baseRT().RoundTrip(out)
		if err == nil && resp == nil {
			err = ErrNilResponse
		}
		t.logAttempt(req, attempt, resp, err, time.Since(start))
		sent := connected.Load()
		if err == nil {
			sent = true // a response is proof the request reached the server
			resp.Request = t.responseRequest(req)
			d := decide(req, resp, nil, true)
			if delay, ok := t.next(ctx, d, attempt, maxRetries); ok {
				discard(resp)
				if err := t.wait(req, attempt, d.reason, delay); err != nil {
					return nil, err
				}
				continue
			}
			var body []byte
			if body, err = t.readBody(req, resp); err == nil {
				return t.finish(req, resp, body)
			}
		}
		d := decide(req, nil, err, sent)
		delay, ok := t.next(ctx, d, attempt, maxRetries)
		if !ok {
			if attempt > 1 {
				err = fmt.Errorf("tensorpool: giving up after %d attempts: %w", attempt, err)
			}
			return nil, err
		}
		if err := t.wait(req, attempt, d.reason, delay); err != nil {
			return nil, err
		}
	}
}

// next says whether to retry after attempt, and after what delay: the
// decision allows it, attempts remain, and the wait ends before ctx's
// deadline.
func (t *transport) next(ctx context.Context, d retryDecision, attempt, maxRetries int) (time.Duration, bool) {
	if !d.retry || attempt > maxRetries {
		return 0, false
	}
	delay, ok := t.delay(d, attempt)
	if !ok {
		return 0, false
	}
	if deadline, has := ctx.Deadline(); has && !time.Now().Add(delay).Before(deadline) {
		return 0, false
	}
	return delay, true
}

// wait logs a retry and sleeps before it.
func (t *transport) wait(req *http.Request, attempt int, reason string, delay time.Duration) error {
	t.logRetry(req, attempt, reason, delay)
	if err := sleep(req.Context(), delay); err != nil {
		return fmt.Errorf("tensorpool: %w while waiting %v to retry after %s", err, delay, reason)
	}
	return nil
}

// prepare makes the request one attempt sends: a clone (RoundTrip must not
// change req) with its body rewound, the key only for the base URL's origin,
// and the User-Agent.
func (t *transport) prepare(req *http.Request, attempt int) (*http.Request, error) {
	out := req.Clone(req.Context())
	if attempt > 1 && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("tensorpool: rewinding the request body for a retry: %w", err)
		}
		out.Body = body
	}
	if t.sameOrigin(out.URL) {
		out.Header.Set("Authorization", "Bearer "+t.key.reveal())
	} else {
		// A redirect led elsewhere: whoever set an Authorization header,
		// it stays here. (net/http keeps it for subdomains, other ports
		// and http on the same host.)
		out.Header.Del("Authorization")
	}
	if ua := out.Header.Get("User-Agent"); ua != "" {
		out.Header.Set("User-Agent", ua+" "+t.userAgent)
	} else {
		out.Header.Set("User-Agent", t.userAgent)
	}
	return out, nil
}

// responseRequest is the request a response points back to: the caller's,
// without any Authorization header, with the key in its context so that
// NewAPIError can scrub it.
func (t *transport) responseRequest(req *http.Request) *http.Request {
	r := req.WithContext(context.WithValue(req.Context(), keyCtxKey{}, t.key))
	if r.Header.Get("Authorization") != "" {
		r.Header = r.Header.Clone()
		r.Header.Del("Authorization")
	}
	return r
}

func (t *transport) delay(d retryDecision, retry int) (time.Duration, bool) {
	if d.hasHint {
		if d.hint > t.retry.MaxRetryAfter {
			return 0, false
		}
		return d.hint, true
	}
	return t.retry.backoff(retry), true
}

// finish hands on a response whose body has been read, with the media type
// of its Content-Type lower-cased (mediatype.Normalize) so that the
// generated parser decodes "Application/JSON" too: as is, or as a
// *DecodeError for a 2xx whose Content-Type says JSON but whose body is not
// JSON (the generated parser would fail with a bare *json.SyntaxError and no
// status).
func (t *transport) finish(req *http.Request, resp *http.Response, body []byte) (*http.Response, error) {
	resp.Header = mediatype.Normalize(resp.Header)
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 && resp.StatusCode != http.StatusNoContent &&
		resp.StatusCode != http.StatusResetContent && req.Method != http.MethodHead &&
		mediatype.IsJSON(ct) && !json.Valid(body) {
		return nil, newDecodeError(t.key, resp.StatusCode, req.Method, req.URL.Path, ct, body,
			json.Unmarshal(body, new(json.RawMessage)))
	}
	fixValidationBody(resp, body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// fixValidationBody keeps a 422 that is not in FastAPI's validation shape
// from hiding its status. The generated parsers decode every JSON 422 body
// as gen.HTTPValidationError and, when that fails (FastAPI's
// HTTPException(422, "text") sends {"detail": "text"}), return only a JSON
// error. Such a body is relabelled text/plain, so the generated method
// returns the response and Check reports the *APIError with its message.
func fixValidationBody(resp *http.Response, body []byte) {
	if resp.StatusCode != http.StatusUnprocessableEntity || !mediatype.IsJSON(resp.Header.Get("Content-Type")) {
		return
	}
	var v gen.HTTPValidationError
	if json.Unmarshal(body, &v) != nil {
		resp.Header = resp.Header.Clone()
		resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
	}
}

// sleep waits for d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// discard drains a little of a response that is being retried, so its
// connection can be reused, and closes it.
func discard(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
	_ = resp.Body.Close()
}

// readBody reads resp's body, at most maxBodyBytes of it, and closes it. A
// 2xx body past the cap fails with a *ResponseTooLargeError (at once when
// Content-Length announces it), and a 2xx body that cannot be read (a
// connection lost mid-body) with an error naming the request. Any other
// status keeps what could be read, marked truncated for NewAPIError: its
// body only explains the status, which must not be lost.
func (t *transport) readBody(req *http.Request, resp *http.Response) ([]byte, error) {
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil, nil
	}
	defer resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	tooLarge := func() error {
		return &ResponseTooLargeError{StatusCode: resp.StatusCode, Method: req.Method, Path: t.key.scrub(req.URL.Path), Limit: t.maxBodyBytes}
	}
	if ok && resp.ContentLength > t.maxBodyBytes {
		return nil, tooLarge() // the server announced too much: do not read it
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBodyBytes+1))
	switch {
	case ok && int64(len(body)) > t.maxBodyBytes:
		return nil, tooLarge()
	case ok && err != nil:
		return nil, &bodyReadError{status: resp.StatusCode, method: req.Method, path: t.key.scrub(req.URL.Path), err: err}
	case err != nil || int64(len(body)) > t.maxBodyBytes:
		body = body[:min(int64(len(body)), t.maxBodyBytes)]
		resp.Request = resp.Request.WithContext(context.WithValue(resp.Request.Context(), truncatedCtxKey{}, true))
	}
	return body, nil
}

// bodyReadError is a failure to read a response body: it names the request
// and unwraps to the cause (io.ErrUnexpectedEOF when the connection dropped).
type bodyReadError struct {
	status       int
	method, path string
	err          error
}

// Error implements error.
func (e *bodyReadError) Error() string {
	return fmt.Sprintf("tensorpool: %s %s: reading the %d response body: %v", e.method, e.path, e.status, e.err)
}

// Unwrap returns the cause.
func (e *bodyReadError) Unwrap() error { return e.err }

// Transient reports that the body was lost once the response had started
// (internal/transient.Marker): whatever the cause's type (an HTTP/2 stream
// reset, "unexpected EOF reading trailer", a custom transport's body), the
// same request may succeed again. A cancellation still is not transient.
func (e *bodyReadError) Transient() bool { return true }
