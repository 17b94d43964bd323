package tensorpool

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/retryafter"
	"github.com/tensorpool/tensorpool-go/internal/transient"
)

// RetryPolicy sets how often and how long the client retries. What it
// retries is fixed (see the package documentation).
type RetryPolicy struct {
	MaxRetries int // sends after the first; 0 disables retries
	// Without Retry-After, retry n waits a random time between d/2 and d,
	// where d is MinBackoff·2^(n-1), at most MaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After waited for. A response that
	// asks for longer is returned at once (APIError.RetryAfter).
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy returns the policy NewClient uses: up to 3 retries,
// waits from 0.5 s doubling up to 8 s, and Retry-After honoured up to 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, MinBackoff: 500 * time.Millisecond, MaxBackoff: 8 * time.Second, MaxRetryAfter: 30 * time.Second}
}

func (p RetryPolicy) validate() error {
	switch {
	case p.MaxRetries < 0:
		return fmt.Errorf("tensorpool: RetryPolicy.MaxRetries is negative (%d)", p.MaxRetries)
	case p.MinBackoff < 0 || p.MaxBackoff < 0 || p.MaxRetryAfter < 0:
		return errors.New("tensorpool: RetryPolicy has a negative duration")
	case p.MaxBackoff < p.MinBackoff:
		return fmt.Errorf("tensorpool: RetryPolicy.MaxBackoff (%v) is less than MinBackoff (%v)", p.MaxBackoff, p.MinBackoff)
	}
	return nil
}

// backoff is the wait before retry number n (1 for the first retry).
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.MinBackoff
	for i := 1; i < n && d < p.MaxBackoff; i++ {
		d = min(d, p.MaxBackoff/2) * 2 // saturates; never overflows
	}
	d = min(d, p.MaxBackoff)
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d-d/2+1)
}

// again reports whether to send req again after attempt, sent at start,
// having logged the attempt and, if so, waited. resp is the attempt's
// response, read in full; err its error, of the send or of the read.
// again's own error is ctx's, if ctx ends during the wait.
func (p RetryPolicy) again(ctx context.Context, log logger, req *http.Request, resp *http.Response, err error, attempt, maxRetries int, start time.Time) (bool, error) {
	reason, delay := p.retry(ctx, req, resp, err, attempt, maxRetries)
	log.attempt(req, attempt, resp, err, start, reason, delay)
	if reason == "" {
		return false, nil
	}
	select {
	case <-ctx.Done():
		return false, fmt.Errorf("tensorpool: %w while waiting %v to retry after %s", ctx.Err(), delay, reason)
	case <-time.After(delay):
		return true, nil
	}
}

// retry returns why req may be sent again after attempt, and after how long
// ("" if not): the table of the package documentation, within maxRetries,
// MaxRetryAfter and ctx's deadline.
func (p RetryPolicy) retry(ctx context.Context, req *http.Request, resp *http.Response, err error, attempt, maxRetries int) (string, time.Duration) {
	if attempt > maxRetries || ctx.Err() != nil {
		return "", 0
	}
	reason, delay, hasHint := retryReason(req.Method, resp, err)
	switch {
	case reason == "" || hasHint && delay > p.MaxRetryAfter:
		return "", 0
	case !hasHint:
		delay = p.backoff(attempt)
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Add(delay).Before(deadline) {
		return "", 0
	}
	return reason, delay
}

// retryReason applies the retry table of the package documentation to one
// attempt's response or error: why it may be sent again ("" if not), and
// the response's Retry-After, if any.
func retryReason(method string, resp *http.Response, err error) (reason string, hint time.Duration, hasHint bool) {
	safe := isSafeMethod(method)
	if err != nil {
		var op *net.OpError // a dial or DNS error: nothing of the request was written; a response proves it was sent
		switch dial := errors.As(err, &op) && op.Op == "dial" || errors.As(err, new(*net.DNSError)); {
		case !transient.Is(err):
		case safe:
			return "connection error", 0, false
		case dial && !errors.As(err, new(*DecodeError)):
			return "dial error (request not sent)", 0, false
		}
		return "", 0, false
	}
	if code := resp.StatusCode; code == http.StatusTooManyRequests || safe && transient.Status(code) {
		hint, hasHint = retryafter.Parse(resp.Header, time.Now())
		return strconv.Itoa(code) + " " + http.StatusText(code), hint, hasHint
	}
	return "", 0, false
}

// isSafeMethod reports whether a request with this method may be sent again
// after it reached the server: it changes nothing there.
func isSafeMethod(m string) bool { return m == http.MethodGet || m == http.MethodHead }
