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
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
)

// ErrResponseTooLarge is matched (errors.Is) by the error a response body
// read fails with once it passes the cap set by WithMaxResponseBytes.
var ErrResponseTooLarge = errors.New("tensorpool: response body too large")

// ResponseTooLargeError is the error reading a response body returns once
// the body passes the cap (WithMaxResponseBytes). The generated
// ...WithResponse methods return it as their error.
type ResponseTooLargeError struct {
	Method string // request method
	Path   string // request path, without host or query
	Limit  int64  // the cap, in bytes
}

// Error implements error.
func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("tensorpool: %s %s: response body larger than %d bytes (see WithMaxResponseBytes)", e.Method, e.Path, e.Limit)
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

// RoundTrip implements http.RoundTripper.
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
		if err == nil {
			resp.Request = t.responseRequest(req)
			resp.Body = t.capBody(req, resp)
		}
		if attempt > maxRetries {
			return finish(resp, err, attempt)
		}
		d := decide(req, resp, err, connected.Load())
		if !d.retry {
			return finish(resp, err, attempt)
		}
		delay, ok := t.delay(d, attempt)
		if !ok {
			return finish(resp, err, attempt)
		}
		if deadline, has := ctx.Deadline(); has && !time.Now().Add(delay).Before(deadline) {
			return finish(resp, err, attempt)
		}
		discard(resp)
		t.logRetry(req, attempt, d.reason, delay)
		if err := sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("tensorpool: %w while waiting %v to retry after %s", err, delay, d.reason)
		}
	}
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

// finish returns the outcome of the last attempt, saying how many there
// were if more than one failed.
func finish(resp *http.Response, err error, attempts int) (*http.Response, error) {
	if err != nil {
		if attempts > 1 {
			err = fmt.Errorf("tensorpool: giving up after %d attempts: %w", attempts, err)
		}
		return nil, err
	}
	fixValidationBody(resp)
	return resp, nil
}

// fixValidationBody keeps a 422 that is not in FastAPI's validation shape
// from hiding its status. The generated parsers decode every JSON 422 body
// as gen.HTTPValidationError and, when that fails (FastAPI's
// HTTPException(422, "text") sends {"detail": "text"}), return only a JSON
// error. Such a body is relabelled text/plain, so the generated method
// returns the response and Check reports the *APIError with its message.
func fixValidationBody(resp *http.Response) {
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(resp.Header.Get("Content-Type"), "json") || resp.Body == nil {
		return
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var v gen.HTTPValidationError
	if err == nil && json.Unmarshal(body, &v) != nil {
		resp.Header = resp.Header.Clone()
		resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
	}
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
}

// errReader fails with err, or reports EOF if err is nil.
type errReader struct{ err error }

// Read implements io.Reader.
func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
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

// capBody wraps resp.Body so that reading more than maxBodyBytes fails.
func (t *transport) capBody(req *http.Request, resp *http.Response) io.ReadCloser {
	if resp.Body == nil || resp.Body == http.NoBody {
		return resp.Body
	}
	c := &cappedBody{rc: resp.Body, left: t.maxBodyBytes}
	c.err = &ResponseTooLargeError{Method: req.Method, Path: t.key.scrub(req.URL.Path), Limit: t.maxBodyBytes}
	if resp.ContentLength > t.maxBodyBytes {
		c.left = -1 // fail at once: the server announced too much
	}
	return c
}

// cappedBody returns its underlying body's bytes up to a limit, then fails
// with a *ResponseTooLargeError if there is more: never a silent truncation.
type cappedBody struct {
	rc   io.ReadCloser
	left int64 // bytes still allowed; -1 fails the next Read
	err  *ResponseTooLargeError
}

// Read implements io.Reader.
func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if c.left == 0 {
		// At the cap: fine if the body ends here, an error if it does not.
		var b [1]byte
		n, err := c.rc.Read(b[:])
		if n > 0 {
			c.left = -1
			return 0, c.err
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	return n, err
}

// Close implements io.Closer.
func (c *cappedBody) Close() error { return c.rc.Close() }
