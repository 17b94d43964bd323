package tensorpool

import (
	"bytes"
	"context"
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

// doer is the gen.HttpRequestDoer NewClient installs, above http.Client:
// after every request editor, it validates the request, bounds the whole
// call by the timeout, retries, reads the body under its cap and redacts
// the key, so that Check and package wait need no key.
type doer struct {
	hc        *http.Client // its Transport is an authTransport; its CheckRedirect a redirectPolicy
	redact    redactor
	timeout   time.Duration
	retry     RetryPolicy
	maxBody   int64
	logger    *slog.Logger
	userAgent []string // the User-Agent header's value
	basePath  string
	validate  bool
	doc       *document // the API spec: spec()
}

// Do implements gen.HttpRequestDoer. The response holds its whole body, a
// *body, and points back to req.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	rt, err := d.doc.request(req, d.basePath, d.validate)
	if err != nil {
		return nil, d.redact.err(err)
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
	maxRetries, poll := d.retry.MaxRetries, retryctx.IsPoll(ctx)
	if poll || req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
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
				return nil, d.redact.err(fmt.Errorf("tensorpool: rewinding the request body for a retry: %w", err))
			}
			r.Body = body
		}
		start := time.Now()
		resp, err := d.hc.Do(r)
		err = withoutUserinfo(err)
		d.logAttempt(req, attempt, resp, err, start)
		if err == nil {
			if again, err := d.again(ctx, req, resp, nil, attempt, maxRetries); again || err != nil {
				if err != nil {
					return nil, d.redact.err(err)
				}
				continue
			}
			var b *body
			if b, err = d.read(req, resp); err == nil {
				return d.finish(req, resp, b, rt, poll)
			}
		}
		again, werr := d.again(ctx, req, nil, err, attempt, maxRetries)
		switch {
		case werr != nil:
			return nil, d.redact.err(werr)
		case !again && attempt > 1:
			return nil, d.redact.err(fmt.Errorf("tensorpool: giving up after %d attempts: %w", attempt, err))
		case !again:
			return nil, d.redact.err(err)
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
	if resp != nil { // drain a little, so that the connection can be reused
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		_ = resp.Body.Close()
	}
	if d.logger != nil {
		d.log(req, slog.LevelInfo, "tensorpool: retrying", attempt, slog.String("reason", reason), slog.Duration("delay", delay))
	}
	select {
	case <-ctx.Done():
		return false, fmt.Errorf("tensorpool: %w while waiting %v to retry after %s", ctx.Err(), delay, reason)
	case <-time.After(delay):
		return true, nil
	}
}

// read reads resp's body, at most maxBody bytes, and closes it. A 2xx body
// past the cap or cut short is a *DecodeError; any other status keeps what
// could be read, marked truncated, so that the status is never lost.
func (d *doer) read(req *http.Request, resp *http.Response) (*body, error) {
	defer resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	fail := func(err error) error {
		return &DecodeError{StatusCode: resp.StatusCode, Method: req.Method, Path: d.redact.text(req.URL.Path),
			ContentType: servertext.Clean(d.redact.text(resp.Header.Get("Content-Type"))), Err: err}
	}
	size := resp.ContentLength // announced; a HEAD's is the GET's, its body empty
	if resp.Body == http.NoBody {
		size = 0
	}
	if ok && size > d.maxBody {
		return nil, fail(fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, d.maxBody))
	}
	b := &body{lr: io.LimitedReader{R: resp.Body, N: d.maxBody + 1}, redact: d.redact.text} // one allocation for both
	var err error
	if n := min(size, d.maxBody); n >= 0 { // as announced (up to the cap), and one byte more to see a longer body
		b.data = make([]byte, n+1)
		var k int
		if k, err = io.ReadFull(&b.lr, b.data); int64(k) == n && (err == io.ErrUnexpectedEOF || err == io.EOF) {
			b.data, err = b.data[:k], nil
		} else {
			b.data = b.data[:k]
		}
	}
	if err == nil && (size < 0 || int64(len(b.data)) > min(size, d.maxBody)) {
		// bytes.Buffer growing by doubling: a large body costs about twice
		// its size, where Go 1.25's io.ReadAll costs five.
		buf := bytes.NewBuffer(b.data)
		_, err = buf.ReadFrom(&b.lr)
		b.data = buf.Bytes()
	}
	b.lr.R = nil
	switch {
	case ok && int64(len(b.data)) > d.maxBody:
		return nil, fail(fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, d.maxBody))
	case ok && err != nil:
		return nil, fail(bodyLost{fmt.Errorf("reading the body: %w", err)})
	case err != nil || int64(len(b.data)) > d.maxBody:
		b.truncated, b.data = true, b.data[:min(int64(len(b.data)), d.maxBody)]
	}
	return b, nil
}

// finish sets resp's body and header values: a success's as sent but for
// an exact echo of the key, an error's (a diagnostic) under the redaction
// rule; the media type lower-cased (the generated parsers look for "json"
// case-sensitively); Request pointing to req, or to a copy if its path held
// the key. Then it returns resp, or the error of the response check; a
// poll of package wait's is returned as is (wait checks it itself).
func (d *doer) finish(req *http.Request, resp *http.Response, b *body, rt *route, poll bool) (*http.Response, error) {
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		b.data = d.redact.data(b.data)
		d.redact.header(resp.Header, d.redact.value)
	} else {
		b.data = []byte(d.redact.text(string(b.data)))
		d.redact.header(resp.Header, d.redact.text)
	}
	b.Reset(b.data)
	b.route = rt
	resp.Header = mediatype.Normalize(resp.Header)
	resp.Body, resp.ContentLength, resp.Request = b, int64(len(b.data)), req
	if p := d.redact.text(req.URL.Path); p != req.URL.Path {
		r, u := *req, *req.URL
		u.Path, u.RawPath = p, ""
		r.URL = &u
		resp.Request = &r
	}
	if !poll {
		if err := checkResponse(rt, resp, b.data, b); err != nil {
			return nil, err
		}
	}
	return resp, nil
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

// body is a response body the doer read in full. Check reads truncated and
// redact from it; package wait, Redact.
type body struct {
	bytes.Reader
	data      []byte
	lr        io.LimitedReader    // reads the response's body, in read
	truncated bool                // cut at the cap, or the connection dropped
	redact    func(string) string // the rule for diagnostics
	route     *route              // the request's operation
}

func (*body) Close() error { return nil }

// Redact applies the client's redaction rule for diagnostics, so that
// package wait can put server text in its errors without the key.
func (b *body) Redact(s string) string { return b.redact(s) }

// bodyLost is the cause of a *DecodeError for a 2xx body lost mid-way:
// it may come whole next time, whatever the cause's type
// (internal/transient.Marker).
type bodyLost struct{ error }

func (e bodyLost) Unwrap() error   { return e.error }
func (e bodyLost) Transient() bool { return true }
