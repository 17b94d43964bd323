package tensorpool

import (
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

// RetryPolicy sets how often and how long the client retries. Which
// responses and errors are retried is fixed; the package documentation
// lists them.
type RetryPolicy struct {
	// MaxRetries is how many times a request may be sent again after its
	// first attempt. 0 disables retries.
	MaxRetries int
	// MinBackoff is the wait before the first retry when the server gives
	// no Retry-After; it doubles with every retry up to MaxBackoff. Each
	// wait is drawn at random between half of that value and that value.
	MinBackoff time.Duration
	// MaxBackoff caps the wait between attempts when the server gives no
	// Retry-After.
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for. A
	// response asking for longer is returned at once, so the caller sees it
	// (APIError.RetryAfter) and can reschedule.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy returns the policy NewClient uses: up to 3 retries,
// waits from 0.5 s doubling up to 8 s, and Retry-After honoured up to 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxRetries:    3,
		MinBackoff:    500 * time.Millisecond,
		MaxBackoff:    8 * time.Second,
		MaxRetryAfter: 30 * time.Second,
	}
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
		if d > p.MaxBackoff/2 {
			d = p.MaxBackoff // doubling would pass it (or overflow)
			break
		}
		d *= 2
	}
	d = min(d, p.MaxBackoff)
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// isSafeMethod reports whether a request with this method may be sent again
// after it reached the server: it changes nothing there.
func isSafeMethod(m string) bool { return m == http.MethodGet || m == http.MethodHead }

// retryDecision is what one attempt's outcome means for the next.
type retryDecision struct {
	retry  bool
	reason string
	// hint is the server's Retry-After, when it gave one (hasHint).
	hint    time.Duration
	hasHint bool
}

// decide applies the retry table of the package documentation to one
// attempt. connected reports whether a connection to the server was obtained
// for this attempt (httptrace GotConn); without one nothing was sent.
func decide(req *http.Request, resp *http.Response, err error, connected bool) retryDecision {
	if req.Context().Err() != nil {
		return retryDecision{} // the caller's deadline or cancellation
	}
	if err != nil {
		if !retryableError(err) {
			return retryDecision{}
		}
		if isSafeMethod(req.Method) {
			return retryDecision{retry: true, reason: "connection error"}
		}
		if !connected && isDialError(err) {
			return retryDecision{retry: true, reason: "dial error (request not sent)"}
		}
		return retryDecision{}
	}
	switch code := resp.StatusCode; {
	case code == http.StatusTooManyRequests:
		d := retryDecision{retry: true, reason: "429 Too Many Requests"}
		d.hint, d.hasHint = retryafter.Parse(resp.Header, time.Now())
		return d
	case isSafeMethod(req.Method) && (code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout):
		d := retryDecision{retry: true, reason: strconv.Itoa(code) + " " + http.StatusText(code)}
		d.hint, d.hasHint = retryafter.Parse(resp.Header, time.Now())
		return d
	}
	return retryDecision{}
}

// retryableError reports whether a transport error is known to be
// transient (internal/transient: the connection was refused, reset, closed
// early or timed out, an HTTP/2 stream or connection failed, DNS failed other
// than "no such host", the body was lost mid-way). Anything else (an invalid
// header, an unsupported scheme, a redirect loop, a TLS or certificate
// error, a response over the size cap, a cancellation, an error of a custom
// transport) happens again on every attempt, so it is not retried. Package
// wait applies the same rule. A timeout of the transport's own (such as
// http.Transport.ResponseHeaderTimeout) is retryable; the request's context
// having expired is checked by decide.
func retryableError(err error) bool {
	return !errors.Is(err, ErrResponseTooLarge) && transient.Is(err)
}

// isDialError reports whether err happened while connecting (DNS lookup or
// TCP connect), before any byte of the request could be written.
func isDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}
