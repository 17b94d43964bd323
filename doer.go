package tensorpool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/mediatype"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
	"github.com/tensorpool/tensorpool-go/internal/servertext"
)

// doer is the gen.HttpRequestDoer NewClient installs, above http.Client
// (as hcloud-go's handler chain and openai-go's request executor): after
// every request editor, it validates the request, bounds the whole call by
// the timeout, retries, reads the body under its cap and scrubs the key
// from everything it hands on, so that Check and package wait need no key.
type doer struct {
	hc        *http.Client // its Transport is an authTransport; its CheckRedirect a redirectPolicy
	scrub     scrubber
	timeout   time.Duration
	retry     RetryPolicy
	maxBody   int64
	logger    *slog.Logger
	userAgent []string // the User-Agent header's value
	basePath  string
	validate  bool
}

// Do implements gen.HttpRequestDoer. The response holds its whole body, a
// scrubbed *body, and points back to req.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	if err := d.check(req); err != nil {
		return nil, err
	}
	if ua := req.Header["User-Agent"]; len(ua) > 0 && ua[0] != "" {
		req.Header["User-Agent"] = []string{ua[0] + " " + d.userAgent[0]}
	} else {
		req.Header["User-Agent"] = d.userAgent // shared, never written
	}
	ctx := req.Context()
	if dl, ok := ctx.Deadline(); d.timeout > 0 && (!ok || time.Until(dl) > d.timeout) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	maxRetries := d.retry.MaxRetries
	if retryctx.TransportRetriesDisabled(ctx) || req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		maxRetries = 0 // package wait retries its polls itself; a streamed body cannot be sent twice
	}
	for attempt := 1; ; attempt++ {
		r := req // the call's own request, reused for its first attempt
		if ctx != req.Context() || attempt > 1 {
			r = req.WithContext(ctx)
		}
		if attempt > 1 && req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
			body, err := req.GetBody()
			if err != nil {
				return nil, d.scrub.err(fmt.Errorf("tensorpool: rewinding the request body for a retry: %w", err))
			}
			r.Body = body
		}
		var start time.Time
		if d.logger != nil {
			start = time.Now()
		}
		resp, err := d.hc.Do(r)
		err = withoutUserinfo(err)
		d.logAttempt(req, attempt, resp, err, start)
		if err == nil {
			if resp.StatusCode >= 300 && resp.StatusCode <= 399 && !isSafeMethod(req.Method) && resp.Header.Get("Location") != "" {
				return nil, d.redirected(req, resp)
			}
			if again, err := d.again(ctx, req, resp, nil, attempt, maxRetries); again || err != nil {
				if err != nil {
					return nil, d.scrub.err(err)
				}
				continue
			}
			var b *body
			var data []byte
			if b, data, err = d.read(req, resp); err == nil {
				resp, data = d.finish(req, resp, b, data)
				if resp.StatusCode >= 200 && resp.StatusCode <= 299 && mediatype.IsJSON(resp.Header.Get("Content-Type")) {
					if err := notJSON(data); err != nil {
						return nil, newDecodeError(resp, data, b, err)
					}
				}
				return resp, nil
			}
		}
		again, werr := d.again(ctx, req, nil, err, attempt, maxRetries)
		switch {
		case werr != nil:
			return nil, d.scrub.err(werr)
		case !again && attempt > 1:
			return nil, d.scrub.err(fmt.Errorf("tensorpool: giving up after %d attempts: %w", attempt, err))
		case !again:
			return nil, d.scrub.err(err)
		}
	}
}

// again reports whether to send the request again after attempt (see the
// package documentation), having waited if so; err is ctx's if it ends
// during the wait.
func (d *doer) again(ctx context.Context, req *http.Request, resp *http.Response, err error, attempt, maxRetries int) (bool, error) {
	if attempt > maxRetries || ctx.Err() != nil {
		return false, nil
	}
	reason, delay, hasHint := retryReason(req.Method, resp, err)
	switch {
	case reason == "" || hasHint && delay > d.retry.MaxRetryAfter:
		return false, nil
	case !hasHint:
		delay = d.retry.backoff(attempt)
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Add(delay).Before(deadline) {
		return false, nil
	}
	if resp != nil {
		discard(resp)
	}
	d.logRetry(req, attempt, reason, delay)
	select {
	case <-ctx.Done():
		return false, fmt.Errorf("tensorpool: %w while waiting %v to retry after %s", ctx.Err(), delay, reason)
	case <-time.After(delay):
		return true, nil
	}
}

// read reads resp's body, at most maxBody bytes, and closes it. A 2xx body
// past the cap is a *ResponseTooLargeError, one cut short a *bodyReadError;
// any other status keeps what could be read, marked truncated, so that the
// status is never lost.
func (d *doer) read(req *http.Request, resp *http.Response) (*body, []byte, error) {
	defer resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	tooLarge := func() error {
		return &ResponseTooLargeError{StatusCode: resp.StatusCode, Method: req.Method, Path: d.scrub.text(req.URL.Path), Limit: d.maxBody}
	}
	if ok && resp.ContentLength > d.maxBody {
		return nil, nil, tooLarge()
	}
	b := &body{lr: io.LimitedReader{R: resp.Body, N: d.maxBody + 1}} // one allocation for both
	// bytes.Buffer sized from Content-Length, growing by doubling: a large
	// body costs about twice its size, where Go 1.25's io.ReadAll costs five.
	var buf bytes.Buffer
	buf.Grow(int(max(min(resp.ContentLength, d.maxBody), 0)) + bytes.MinRead)
	_, err := buf.ReadFrom(&b.lr)
	data := buf.Bytes()
	switch {
	case ok && int64(len(data)) > d.maxBody:
		return nil, nil, tooLarge()
	case ok && err != nil:
		return nil, nil, &bodyReadError{status: resp.StatusCode, method: req.Method, path: d.scrub.text(req.URL.Path), err: err}
	case err != nil || int64(len(data)) > d.maxBody:
		b.truncated = true
		data = data[:min(int64(len(data)), d.maxBody)]
	}
	b.lr.R = nil
	return b, data, nil
}

// finish hands resp on with its body and header values scrubbed, the media
// type lower-cased (the generated parsers look for "json" case-sensitively)
// and Request pointing to req, or to a copy if its path held the key. It
// returns the scrubbed body too.
func (d *doer) finish(req *http.Request, resp *http.Response, b *body, data []byte) (*http.Response, []byte) {
	if len(data) > maxErrorBody && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		b.head = d.scrub.bytes(data[:maxErrorBody:maxErrorBody]) // cut, then scrubbed: a cut key is caught
	}
	data = d.scrub.bytes(data)
	b.Reset(data)
	for _, vs := range resp.Header {
		for i, v := range vs {
			vs[i] = d.scrub.text(v)
		}
	}
	resp.Header = mediatype.Normalize(resp.Header)
	fixValidationBody(resp, data)
	resp.Body, resp.ContentLength, resp.Request = b, int64(len(data)), req
	if p := d.scrub.text(req.URL.Path); p != req.URL.Path {
		r, u := *req, *req.URL
		u.Path, u.RawPath = p, ""
		r.URL = &u
		resp.Request = &r
	}
	return resp, data
}

// notJSON returns the *json.SyntaxError of a body labelled JSON that is not
// JSON, so that it fails here, where its status, method and path are known
// (the generated parser would return a bare encoding/json error). An object
// or array, the answers of this API, is taken on its first and last bytes,
// leaving the full check to the parser: one decode, not two.
func notJSON(data []byte) error {
	t := bytes.TrimSpace(data)
	if len(t) >= 2 && (t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return nil
	}
	return json.Unmarshal(t, new(json.RawMessage))
}

// withoutUserinfo drops the userinfo from the URL of net/http's *url.Error:
// a redirect can lead to a URL whose user name is a credential.
func withoutUserinfo(err error) error {
	if ue, ok := err.(*url.Error); ok {
		if u, perr := url.Parse(ue.URL); perr == nil && u.User != nil {
			return &url.Error{Op: ue.Op, URL: urlString(u), Err: ue.Err}
		}
	}
	return err
}

// redirected closes a redirect answered to a mutating request and reports it.
func (d *doer) redirected(req *http.Request, resp *http.Response) error {
	loc := resp.Header.Get("Location")
	if u, err := resp.Location(); err == nil {
		loc = urlString(u)
	}
	discard(resp)
	return &RedirectError{StatusCode: resp.StatusCode, Method: req.Method, Path: d.scrub.text(req.URL.Path),
		Location: servertext.Clean(d.scrub.text(loc))}
}

// check refuses a request HTTP cannot carry or that breaks a rule of the spec.
func (d *doer) check(req *http.Request) error {
	err := checkHeaders(req)
	if err == nil && d.validate {
		err = validateRequest(req, d.basePath)
	}
	if ire, ok := err.(*InvalidRequestError); ok {
		ire.Path, ire.Reason = d.scrub.text(ire.Path), d.scrub.text(ire.Reason)
	}
	return d.scrub.err(err)
}

// body is a response body the doer read in full, scrubbed of the key.
// Check reads truncated and head from it.
type body struct {
	bytes.Reader
	lr        io.LimitedReader // reads the response's body, in read
	truncated bool             // cut at the cap, or the connection dropped
	head      []byte           // an error body past maxErrorBody: its start, scrubbed
}

// Close implements io.Closer.
func (*body) Close() error { return nil }

// bodyReadError is a failure to read a 2xx response body: it names the
// request and unwraps to the cause.
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

// Transient implements internal/transient.Marker: a body lost once the
// response had started may come whole next time, whatever the cause's type.
func (e *bodyReadError) Transient() bool { return true }
