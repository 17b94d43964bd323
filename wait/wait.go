package wait

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/mediatype"
	"github.com/tensorpool/tensorpool-go/internal/retryafter"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
	"github.com/tensorpool/tensorpool-go/internal/transient"
)

const (
	maxBody    = 1 << 20  // cap on a 200 body: a hostile server must not exhaust memory
	maxErrBody = 64 << 10 // cap on a non-200 body kept for the APIError
)

// Client is the one method of the generated client a Poller uses. Both
// *gen.Client and *gen.ClientWithResponses implement it.
type Client interface {
	GetRequestInfo(ctx context.Context, requestID string, reqEditors ...gen.RequestEditorFn) (*http.Response, error)
}

// Poller polls GET /request/info/{request_id}. It is safe for concurrent use;
// its options are fixed by New.
type Poller struct {
	c    Client
	cfg  config
	sem  chan struct{} // bounds in-flight poll requests
	mu   sync.Mutex    // serializes progress callbacks; held while one runs
	rand func() float64
}

// New returns a Poller that polls through c (a *gen.Client or
// *gen.ClientWithResponses).
func New(c Client, opts ...Option) *Poller {
	cfg := config{
		minInterval:   DefaultMinInterval,
		maxInterval:   DefaultMaxInterval,
		maxBackoff:    DefaultMaxBackoff,
		maxFailures:   DefaultMaxFailures,
		notFoundGrace: DefaultNotFoundGrace,
		concurrency:   DefaultConcurrency,
	}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.maxInterval = max(cfg.maxInterval, cfg.minInterval)
	cfg.maxBackoff = min(max(cfg.maxBackoff, cfg.minInterval), cfg.maxInterval)
	return &Poller{c: c, cfg: cfg, sem: make(chan struct{}, cfg.concurrency), rand: rand.Float64}
}

// Reason says why a delay was chosen.
type Reason string

// The reasons for a delay, and for the end of polling (Next == 0).
const (
	ReasonRetryAfter Reason = "retry-after"                         // the server's Retry-After, plus jitter
	ReasonRaised     Reason = "retry-after raised to min interval"  // the hint was below WithMinInterval
	ReasonClamped    Reason = "retry-after clamped to max interval" // the hint was above WithMaxInterval
	ReasonBackoff    Reason = "backoff"                             // no usable Retry-After: exponential backoff, plus jitter
	ReasonTrimmed    Reason = "trimmed to the deadline"             // shortened to poll before ctx's deadline (Wait, WaitAll), never below the hint or the min interval
	ReasonDone       Reason = "done"                                // a terminal status, or an error from a poll
	ReasonContext    Reason = "context ended"                       // ctx was cancelled or expired, or its deadline comes before the next poll may: Err wraps ctx's error
	ReasonStopped    Reason = "stopped"                             // WaitAll under WithFailFast: another id failed; Err wraps ErrStopped
)

// Step is the outcome of one poll, for callers that schedule polls
// themselves (a controller requeues after Next instead of sleeping). Pass the
// previous Step back to the next call: it carries the counters that bound
// transient failures and the 404 grace.
type Step struct {
	RequestID string
	// Info is the last request info seen (this poll's or an earlier one's);
	// nil until a poll has succeeded.
	Info *gen.RequestInfoResponse
	// Status is Info.Status, or "" while Info is nil.
	Status gen.RequestStatus
	// Done reports a terminal status: COMPLETED, or FAILED (then the
	// accompanying error is a *FailedError).
	Done bool
	// Next is how long to wait before the next poll; 0 when polling is over
	// (Done, or an error was returned).
	Next time.Duration
	// Reason says why Next was chosen, or why polling is over.
	Reason Reason
	// Attempt counts the polls made, this one included.
	Attempt int
	// Err is this poll's transient failure, if any; polling may continue.
	Err error
	// Failures counts consecutive transient failures, this one included.
	Failures int
	// Started is the time of the first poll.
	Started time.Time

	backoff int           // consecutive delays chosen without a usable hint
	floor   time.Duration // the earliest Next may be: the server's hint or the minimum interval
}

// Update is what WithProgress reports after every poll, and once more when
// ctx (or, in WaitAll, WithFailFast) ends a wait between polls. The last
// Update of a wait has Next == 0 and Reason ReasonDone, ReasonContext or
// ReasonStopped, with Err set unless the request COMPLETED.
type Update struct {
	RequestID string
	Status    gen.RequestStatus // last status seen, "" if none yet
	Attempt   int               // polls made for this request, this one included
	Message   string            // the server's external_message, if any
	Next      time.Duration     // delay before the next poll; 0 if none
	Reason    Reason            // why Next was chosen, or why polling is over
	Err       error             // this poll's failure (transient, or the one ending the wait), if any
	Info      *gen.RequestInfoResponse
}

// Wait polls the request until it is COMPLETED (nil error) or FAILED (a
// *FailedError), or until a permanent error or ctx ends the wait. It returns
// the last request info seen in every case, nil if none was. The first poll
// is sent at once.
//
// If ctx has a deadline, a delay that would end after it is shortened, but
// never below what the server asked for (or the minimum interval); when
// even that does not fit, Wait returns at once with an error wrapping
// context.DeadlineExceeded instead of sleeping only to time out.
func (p *Poller) Wait(ctx context.Context, requestID string) (*gen.RequestInfoResponse, error) {
	if err := checkID(requestID); err != nil {
		return nil, err
	}
	var s *Step
	for {
		var err error
		s, err = p.step(ctx, requestID, s)
		if err == nil && !s.Done {
			err = fitDeadline(ctx, s)
		}
		p.report(s, err)
		if err != nil || s.Done {
			return s.Info, err
		}
		t := time.NewTimer(s.Next)
		select {
		case <-ctx.Done():
			t.Stop()
			err := s.end(ReasonContext, ctxError(ctx, s))
			p.report(s, err)
			return s.Info, err
		case <-t.C:
		}
	}
}

// fitDeadline makes s's next poll come before ctx's deadline: it shortens
// s.Next, never below s.floor, or, if even s.floor does not fit, ends s with
// an error wrapping context.DeadlineExceeded.
func fitDeadline(ctx context.Context, s *Step) error {
	dl, ok := ctx.Deadline()
	if !ok {
		return nil
	}
	left := time.Until(dl)
	switch {
	case s.Next < left:
		return nil
	case s.floor < left:
		// Leave a floor's worth of time before the deadline for the poll
		// itself, unless that would poll earlier than allowed.
		s.Next, s.Reason = max(s.floor, left-s.floor), ReasonTrimmed
		return nil
	}
	return s.end(ReasonContext, fmt.Errorf("wait: request %q: %w: next poll due in %v at the earliest, after the deadline (%s)",
		s.RequestID, context.DeadlineExceeded, s.floor, s.summary()))
}

// Step polls the request once and says what to do next, without waiting. A
// nil error with Done == false means "poll again after Next". A non-nil error
// ends polling: *FailedError (with Done), *TransientError, *UnknownStatusError,
// an error wrapping *tensorpool.APIError, ErrBrokenClient or the Client's
// permanent error, ErrInvalidRequestID, or ctx's error. The returned Step is
// never nil. prev is the Step returned by the previous call for this id, or
// nil for the first.
//
// Unlike Wait, Step does not fit Next to ctx's deadline: a controller's ctx
// bounds one reconcile, not the wait.
func (p *Poller) Step(ctx context.Context, requestID string, prev *Step) (*Step, error) {
	if err := checkID(requestID); err != nil {
		return &Step{RequestID: requestID, Reason: ReasonDone}, err
	}
	s, err := p.step(ctx, requestID, prev)
	p.report(s, err)
	return s, err
}

// step is Step without the progress report, for a valid id.
func (p *Poller) step(ctx context.Context, requestID string, prev *Step) (*Step, error) {
	s := &Step{RequestID: requestID}
	if prev != nil && prev.RequestID == requestID {
		*s = *prev
	}
	s.Done, s.Next, s.Reason, s.Err = false, 0, ReasonDone, nil
	if ctx.Err() != nil {
		return s, s.end(ReasonContext, ctxError(ctx, s))
	}
	if s.Started.IsZero() {
		s.Started = time.Now()
	}
	s.Attempt++
	return s, p.poll(ctx, s)
}

// end marks s as over for reason r and returns err.
func (s *Step) end(r Reason, err error) error {
	s.Next, s.Reason = 0, r
	return err
}

// poll sends one GET and fills in s; a non-nil error ends polling. A
// decoded answer is recorded even if ctx ended meanwhile; a failed GET is
// reported as ctx's error if ctx has ended.
func (p *Poller) poll(ctx context.Context, s *Step) error {
	info, hint, hasHint, transient, err := p.get(ctx, s.RequestID)
	switch {
	case err != nil && ctx.Err() != nil:
		return s.end(ReasonContext, ctxError(ctx, s))
	case err != nil && transient:
		s.Failures++
		s.Err = err
		if s.Failures >= p.cfg.maxFailures {
			return &TransientError{RequestID: s.RequestID, Failures: s.Failures, LastStatus: s.Status, Err: err}
		}
		p.schedule(s, hint, hasHint)
		return nil
	case err != nil:
		var apiErr *tensorpool.APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound &&
			s.Info == nil && time.Since(s.Started) < p.cfg.notFoundGrace {
			s.Err = err // not visible yet: does not count as a failure
			p.schedule(s, hint, hasHint)
			return nil
		}
		return fmt.Errorf("wait: request %q: %w", s.RequestID, err)
	}
	s.Failures = 0
	s.Info, s.Status = info, info.Status
	switch info.Status {
	case gen.RequestStatusCOMPLETED:
		s.Done = true
		return nil
	case gen.RequestStatusFAILED:
		s.Done = true
		return &FailedError{Info: info}
	case gen.RequestStatusPENDING, gen.RequestStatusPROCESSING, gen.RequestStatusRETRYING:
	default:
		if !p.cfg.unknownRunning {
			return &UnknownStatusError{RequestID: s.RequestID, Info: info}
		}
	}
	if ctx.Err() != nil {
		return s.end(ReasonContext, ctxError(ctx, s))
	}
	p.schedule(s, hint, hasHint)
	return nil
}

// schedule sets s.Next: the server's hint raised to the minimum interval or
// clamped to the maximum, else exponential backoff from the minimum interval
// up to the maximum backoff; then up to 25 % positive jitter, never past the
// maximum interval. Every step saturates: no option or hint can overflow.
func (p *Poller) schedule(s *Step, hint time.Duration, hasHint bool) {
	c := &p.cfg
	var base time.Duration
	switch {
	case hasHint && hint > c.maxInterval:
		s.backoff = 0
		s.Next, s.floor, s.Reason = c.maxInterval, c.maxInterval, ReasonClamped
		return
	case hasHint && hint < c.minInterval:
		s.backoff = 0
		base, s.Reason = c.minInterval, ReasonRaised
	case hasHint:
		s.backoff = 0
		base, s.Reason = hint, ReasonRetryAfter
	default:
		base = c.minInterval
		for i := 0; i < s.backoff && base < c.maxBackoff; i++ {
			base = min(base, c.maxBackoff/2) * 2 // saturates; never overflows
		}
		base = min(base, c.maxBackoff)
		s.backoff++
		s.Reason = ReasonBackoff
	}
	s.floor = base
	if s.Reason == ReasonBackoff {
		s.floor = c.minInterval
	}
	// base <= maxInterval, so the room left cannot overflow.
	s.Next = base + min(time.Duration(p.rand()*jitter*float64(base)), c.maxInterval-base)
}

// get sends one GET /request/info/{id}. transient classifies a non-nil err;
// hint is the response's Retry-After, whatever its status.
func (p *Poller) get(ctx context.Context, id string) (info *gen.RequestInfoResponse, hint time.Duration, hasHint, transient bool, err error) {
	select {
	case p.sem <- struct{}{}:
		defer func() { <-p.sem }()
	case <-ctx.Done():
		return nil, 0, false, false, ctx.Err()
	}
	// wait makes every retry decision: the transport must send this once.
	resp, err := p.c.GetRequestInfo(retryctx.WithoutTransportRetries(ctx), id)
	switch {
	case err != nil:
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		transient, err := sendError(err)
		return nil, 0, false, transient, err
	case resp == nil:
		return nil, 0, false, false, fmt.Errorf("%w: nil *http.Response and nil error", ErrBrokenClient)
	case resp.Body == nil:
		return nil, 0, false, false, fmt.Errorf("%w: %d response with a nil Body", ErrBrokenClient, resp.StatusCode)
	}
	hint, hasHint = retryafter.Parse(resp.Header, time.Now())
	if resp.StatusCode != http.StatusOK {
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrBody+1))
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body[:min(len(body), maxErrBody)]))
		_, cerr := tensorpool.Check(gen.ParseGetRequestInfoResponse(resp))
		var apiErr *tensorpool.APIError
		if !errors.As(cerr, &apiErr) { // a 2xx other than 200, or a body the parser refused (a 422 not in FastAPI's shape)
			apiErr = &tensorpool.APIError{StatusCode: resp.StatusCode, Body: body[:min(len(body), maxErrBody)]}
			if resp.Request != nil && resp.Request.URL != nil {
				apiErr.Method, apiErr.Path = resp.Request.Method, resp.Request.URL.Path
			}
		}
		apiErr.Truncated = apiErr.Truncated || err != nil || len(body) > maxErrBody
		return nil, hint, hasHint, apiErr.Temporary(), apiErr
	}
	resp.Header = mediatype.Normalize(resp.Header)
	resp.Body = http.MaxBytesReader(nil, resp.Body, maxBody)
	parsed, err := gen.ParseGetRequestInfoResponse(resp)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		// The same response would be too large again: as the tensorpool
		// client's own cap, this is permanent.
		return nil, hint, hasHint, false, fmt.Errorf("decoding the 200 response: %w (over %d bytes)", tensorpool.ErrResponseTooLarge, maxBody)
	case err != nil:
		return nil, hint, hasHint, true, fmt.Errorf("decoding the 200 response: %w", err)
	case parsed.JSON200 == nil:
		return nil, hint, hasHint, true, fmt.Errorf("decoding the 200 response: Content-Type %q is not JSON", resp.Header.Get("Content-Type"))
	}
	return parsed.JSON200, hint, hasHint, false, nil
}

// sendError classifies err, returned by the Client instead of a response.
// It is transient only if internal/transient says so (the rule the
// tensorpool client's own retries follow: connection failures, timeouts,
// HTTP/2 resets, a body lost mid-way), or if it is a 200 whose body the
// tensorpool client refused as malformed (tensorpool.ErrMalformedResponse),
// as a 200 that does not decode here is. Everything else would come back on
// every poll: TLS and certificate errors, a redirect loop, an unsupported
// scheme, a body past the cap, a request refused or not built, a custom
// transport's own error.
func sendError(err error) (bool, error) {
	if errors.Is(err, tensorpool.ErrResponseTooLarge) {
		return false, err
	}
	return transient.Is(err) || errors.Is(err, tensorpool.ErrMalformedResponse), err
}

// report sends s, and err if it ended the wait, to the progress callback.
func (p *Poller) report(s *Step, err error) {
	if p.cfg.progress == nil {
		return
	}
	u := Update{RequestID: s.RequestID, Status: s.Status, Attempt: s.Attempt, Message: message(s.Info),
		Next: s.Next, Reason: s.Reason, Err: s.Err, Info: s.Info}
	if err != nil {
		u.Next, u.Err = 0, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfg.progress(u)
}
