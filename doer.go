package tensorpool

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/retryctx"
	"github.com/tensorpool/tensorpool-go/internal/servertext"
)

// doer sends the requests of NewClient's client, above http.Client. For
// each call it checks the JSON body, bounds the whole call by the
// timeout, adds the key and the User-Agent to each attempt, retries, and
// reads the body under its cap. Then the response check redacts the key
// and decides the error.
type doer struct {
	hc           *http.Client      // its CheckRedirect is a redirectPolicy
	auth         func(http.Header) // sets the key: the only place it is kept
	scheme, host string            // the base URL's origin: the only one that gets the key
	redact       redactor
	timeout      time.Duration
	retry        RetryPolicy
	maxBody      int64
	logger       *slog.Logger
	userAgent    []string // the User-Agent header's value
	validate     bool
	doc          *document // what validation checks: spec()
}

// do sends req, a call of op. The response holds its whole body, a *body,
// and points back to req.
func (d *doer) do(op *operation, req *http.Request) (*http.Response, error) {
	if d.validate {
		if err := d.body(op, req); err != nil {
			return nil, err
		}
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
		r, err := d.attempt(ctx, req, attempt)
		if err != nil {
			return nil, d.redact.err(err)
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
				return d.finish(op, req, resp, b, poll)
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

// attempt returns the request of one attempt at req: a copy, bounded by
// ctx, with the key (for the base URL's origin only) and the User-Agent in
// its own header, and the body rewound for a retry.
func (d *doer) attempt(ctx context.Context, req *http.Request, attempt int) (*http.Request, error) {
	r := req.WithContext(ctx)
	r.Header = make(http.Header, len(req.Header)+2)
	for k, v := range req.Header {
		r.Header[k] = v // values are shared, never written
	}
	if strings.EqualFold(r.URL.Scheme, d.scheme) && strings.EqualFold(r.URL.Host, d.host) {
		d.auth(r.Header)
	} else {
		delete(r.Header, "Authorization") // a request editor sent it elsewhere
	}
	if ua := req.Header["User-Agent"]; len(ua) > 0 && ua[0] != "" {
		r.Header["User-Agent"] = []string{ua[0] + " " + d.userAgent[0]}
	} else {
		r.Header["User-Agent"] = d.userAgent // shared, never written
	}
	if attempt > 1 && req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("tensorpool: rewinding the request body for a retry: %w", err)
		}
		r.Body = body
	}
	return r, nil
}

// read reads resp's body, at most maxBody bytes, and closes it. A 2xx body
// past the cap or cut short is a *DecodeError. Any other status keeps what
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
		// its size, where io.ReadAll costs five.
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
// redact from it; package wait reads Redact.
type body struct {
	bytes.Reader
	data      []byte
	lr        io.LimitedReader    // reads the response's body, in read
	truncated bool                // cut at the cap, or the connection dropped
	redact    func(string) string // the rule for diagnostics
}

func (*body) Close() error { return nil }

// Redact applies the client's redaction rule for diagnostics, so that
// package wait can put server text in its errors without the key.
func (b *body) Redact(s string) string { return b.redact(s) }

// bodyLost is the cause of a *DecodeError for a 2xx body lost mid-way. It
// may come whole next time, whatever the cause's type
// (internal/transient.Marker).
type bodyLost struct{ error }

func (e bodyLost) Unwrap() error   { return e.error }
func (e bodyLost) Transient() bool { return true }
