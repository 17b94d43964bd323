package wait

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	tensorpool "github.com/tensorpool/tensorpool-go"
	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/ratelimit"
	"github.com/tensorpool/tensorpool-go/internal/retryafter"
	"github.com/tensorpool/tensorpool-go/internal/retryctx"
	"github.com/tensorpool/tensorpool-go/internal/transient"
)

// Client is the one method of gen's clients a Poller uses: pass the
// *gen.ClientWithResponses of tensorpool.NewClient or a *gen.Client (wait
// reads the raw response's headers).
type Client interface {
	GetRequestInfo(ctx context.Context, requestID string, reqEditors ...gen.RequestEditorFn) (*http.Response, error)
}

// Poller polls GET /request/info/{request_id}; it is safe for concurrent use.
type Poller struct {
	c      Client
	cfg    config
	mu     sync.Mutex // serializes progress callbacks
	rand   func() float64
	redact atomic.Pointer[func(string) string] // the key's redaction, from tensorpool.NewClient's first answer body
	pace   *pace                               // admits every poll
}

// New returns a Poller that polls through c, with its options fixed. It
// panics on an option's value out of range, naming the option.
func New(c Client, opts ...Option) *Poller {
	cfg := config{minInterval: DefaultMinInterval, maxInterval: DefaultMaxInterval, maxFailures: DefaultMaxFailures,
		notFoundGrace: DefaultNotFoundGrace, concurrency: DefaultConcurrency}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.err != nil {
		panic(cfg.err)
	}
	return &Poller{c: c, cfg: cfg, rand: rand.Float64, pace: newPace(cfg.concurrency)}
}

// Reason says why a delay was chosen, or why polling is over (Next == 0).
type Reason string

const (
	ReasonRetryAfter Reason = "retry-after"                         // the server's Retry-After, plus jitter
	ReasonRaised     Reason = "retry-after raised to min interval"  // the hint was below WithInterval's lower bound
	ReasonClamped    Reason = "retry-after clamped to max interval" // the hint was above WithInterval's upper bound
	ReasonBackoff    Reason = "backoff"                             // no usable Retry-After: 2 s, or backoff after failures, plus jitter
	ReasonTrimmed    Reason = "trimmed to the deadline"             // shortened to poll before ctx's deadline (Wait, WaitAll)
	ReasonDone       Reason = "done"                                // a terminal status, or an error from a poll
	ReasonContext    Reason = "context ended"                       // ctx ended, or its deadline comes before the next poll may: Err wraps ctx's error
	ReasonStopped    Reason = "stopped"                             // WaitAll under WithFailFast: another id failed; Err wraps ErrStopped
)

// Step is the outcome of one poll, for a caller that requeues after Next
// instead of sleeping; pass it back to the next call (it carries counters).
type Step struct {
	RequestID string
	Info      *gen.RequestInfoResponse // the last request info seen (this poll's or an earlier one's), nil if none
	Status    gen.RequestStatus        // Info.Status, or "" while Info is nil
	Done      bool                     // COMPLETED, or FAILED (then the error wraps ErrFailed)
	Next      time.Duration            // how long to wait before the next poll; 0 when polling is over
	Reason    Reason                   // why Next was chosen, or why polling is over
	Attempt   int                      // polls made, this one included
	Err       error                    // this poll's transient failure or pressure answer (429, 503), if any; polling may continue
	Failures  int                      // consecutive transient failures, this one included (429 and 503 are not failures)
	Started   time.Time                // the time of the first poll

	floor    time.Duration // the earliest Next may be: the server's hint or the minimum interval
	backoffs int           // answers in a row that were not a request info: failures or pressure
}

// Update is what WithProgress reports. A wait's last has Next == 0 and
// Reason ReasonDone, ReasonContext or ReasonStopped, Err set unless COMPLETED.
type Update struct {
	RequestID string
	Status    gen.RequestStatus // last status seen, "" if none yet
	Attempt   int               // polls made for this request, this one included
	Message   string            // the server's external_message, if any, cleaned for printing (data: not redacted)
	Next      time.Duration     // delay before the next poll; 0 if none
	Reason    Reason            // why Next was chosen, or why polling is over
	Err       error             // this poll's failure (transient, or the one ending the wait), if any
	Info      *gen.RequestInfoResponse
}

// Wait polls the request until it is COMPLETED (nil error) or FAILED
// (ErrFailed), or a permanent error or ctx ends the wait; it returns the
// last info seen, nil if none.
func (p *Poller) Wait(ctx context.Context, requestID string) (*gen.RequestInfoResponse, error) {
	if err := checkID(requestID); err != nil {
		return nil, err
	}
	e := p.pollAll(ctx, dueOrder{{s: &Step{RequestID: requestID}}})[0]
	return e.s.Info, e.err
}

// fitDeadline shortens s.Next, never below s.floor, so that one more poll
// comes before ctx's deadline, or ends s if even s.floor does not fit.
func (p *Poller) fitDeadline(ctx context.Context, s *Step) error {
	dl, ok := ctx.Deadline()
	switch left := time.Until(dl); {
	case !ok || s.Next < left:
		return nil
	case s.floor < left:
		s.Next, s.Reason = max(s.floor, left-s.floor), ReasonTrimmed
		return nil
	}
	return p.end(ctx, s, fmt.Errorf("%w: next poll due in %v at the earliest, after the deadline", context.DeadlineExceeded, s.floor))
}

// Step polls the request once, waiting only for the Poller's pace; prev is
// the previous call's Step for this id, or nil. A nil error with Done false
// means "poll again after Next" (not fitted to ctx's deadline); an error
// ends polling, as in Wait. The Step is never nil.
func (p *Poller) Step(ctx context.Context, requestID string, prev *Step) (*Step, error) {
	if err := checkID(requestID); err != nil {
		return &Step{RequestID: requestID, Reason: ReasonDone}, err
	}
	s, err := p.step(ctx, requestID, prev)
	p.report(s, err)
	return s, err
}

// step is Step without the report. An answer is used even if ctx ended meanwhile.
func (p *Poller) step(ctx context.Context, requestID string, prev *Step) (*Step, error) {
	s := &Step{RequestID: requestID, Started: time.Now()}
	if prev != nil && prev.RequestID == requestID && !prev.Started.IsZero() {
		*s = *prev
	}
	s.Done, s.Next, s.Reason = false, 0, ReasonDone
	sent, err := p.pace.take(ctx)
	if err != nil {
		return s, p.end(ctx, s, err)
	}
	defer p.pace.done()
	s.Attempt++
	a := p.get(ctx, requestID)
	if a.answered {
		if a.pressure && a.hasHint { // a 429's or 503's Retry-After holds the whole Poller, as a reset does
			a.limit.Wait = max(a.limit.Wait, min(a.hint, p.cfg.maxInterval))
		}
		p.pace.answered(sent, a.pressure, a.limit)
	}
	switch {
	case !a.answered && a.err != nil && ctx.Err() != nil: // ctx ended the poll: s.Err, the last failure, is named
		return s, p.end(ctx, s, nil)
	case a.pressure: // the server asks to slow down: never a failure, only ctx ends the wait
		s.Err, s.backoffs = a.err, s.backoffs+1
	case a.transient:
		s.Err, s.backoffs = a.err, s.backoffs+1
		if s.Failures++; s.Failures >= p.cfg.maxFailures {
			return s, p.fail(s, fmt.Errorf("%w (%d in a row), the last: %w", ErrTooManyFailures, s.Failures, a.err))
		}
	case tensorpool.IsStatus(a.err, http.StatusNotFound) && s.Info == nil && time.Since(s.Started) < p.cfg.notFoundGrace:
		s.Err = a.err // not visible yet: not a failure
	case a.err != nil:
		s.Err = nil
		return s, p.fail(s, a.err)
	default:
		s.Failures, s.backoffs, s.Info, s.Status, s.Err = 0, 0, a.info, a.info.Status, nil
		switch a.info.Status {
		case gen.RequestStatusCOMPLETED:
			s.Done = true
			return s, nil
		case gen.RequestStatusFAILED:
			s.Done = true
			return s, p.fail(s, ErrFailed)
		case gen.RequestStatusPENDING, gen.RequestStatusPROCESSING, gen.RequestStatusRETRYING:
		default:
			if !p.cfg.unknownRunning {
				return s, p.fail(s, ErrUnknownStatus)
			}
		}
		if ctx.Err() != nil {
			return s, p.end(ctx, s, nil)
		}
	}
	p.schedule(s, a)
	return s, nil
}

// schedule sets s.Next (the package doc's schedule), s.Reason and s.floor;
// no value overflows.
func (p *Poller) schedule(s *Step, a answer) {
	c, base := &p.cfg, p.cfg.minInterval
	switch n := s.backoffs; {
	case a.hasHint && a.hint > c.maxInterval:
		s.Next, s.floor, s.Reason = c.maxInterval, c.maxInterval, ReasonClamped
		return
	case a.hasHint && a.hint < c.minInterval:
		s.Reason = ReasonRaised
	case a.hasHint:
		base, s.Reason = a.hint, ReasonRetryAfter
	case n == 0:
		base, s.Reason = min(max(noHint, c.minInterval), c.maxInterval), ReasonBackoff
	default:
		for s.Reason = ReasonBackoff; n > 1 && base < maxBackoff; n-- {
			base *= 2 // base < 30 s: cannot overflow
		}
		base = min(base, max(maxBackoff, c.minInterval), c.maxInterval)
	}
	s.floor = base
	if !a.hasHint {
		s.floor = c.minInterval
	}
	s.Next = base + min(time.Duration(p.rand()*jitter*float64(base)), c.maxInterval-base)
}

// answer is the outcome of one GET.
type answer struct {
	info                *gen.RequestInfoResponse
	hint                time.Duration // the response's Retry-After, whatever its status
	err                 error
	transient, pressure bool // err may not recur; the server asks to slow down (429, 503)
	answered, hasHint   bool // an HTTP response came; it has a Retry-After (hint)
	limit               ratelimit.Limit
}

// get sends one GET, once (wait makes every retry decision), and checks the
// answer with tensorpool.Check.
func (p *Poller) get(ctx context.Context, id string) (a answer) {
	resp, err := p.c.GetRequestInfo(retryctx.Poll(ctx), id)
	var r *gen.GetRequestInfoResponse
	if err == nil { // else net/http's contract: no body to close
		if resp == nil || resp.Body == nil {
			a.err = fmt.Errorf("%w: a nil response or body, and a nil error", ErrBrokenClient)
			return a
		}
		a.answered = true
		now := time.Now()
		a.hint, a.hasHint = retryafter.Parse(resp.Header, now)
		a.limit = ratelimit.Parse(resp.Header, now)
		a.hasHint = a.hasHint && (resp.StatusCode/100 != 2 || !a.limit.Restates(a.hint)) // slowapi's on every answer is not this request's
		if b, ok := resp.Body.(interface{ Redact(string) string }); ok && p.redact.Load() == nil {
			f := b.Redact
			p.redact.CompareAndSwap(nil, &f)
		}
		if resp.StatusCode/100 == 2 {
			r, err = tensorpool.Check(gen.ParseGetRequestInfoResponse(resp))
		} else { // the status is authoritative: the body makes only the error's message, whether or not it decodes
			body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
			_, err = tensorpool.Check(&gen.GetRequestInfoResponse{Body: body, HTTPResponse: resp}, nil)
		}
	}
	switch {
	case err != nil && a.answered && resp.StatusCode/100 != 2: // an *APIError
		a.transient, a.pressure = transient.Status(resp.StatusCode), transient.Pressure(resp.StatusCode)
	case err != nil: // a 2xx that does not decode may come whole next time; one past the client's cap would not
		a.transient = transient.Is(err) || errors.As(err, new(*tensorpool.DecodeError)) && !errors.Is(err, tensorpool.ErrResponseTooLarge)
	case r.JSON200.RequestID != id:
		err, a.transient = fmt.Errorf("%w: asked for %q, got %q", ErrWrongRequest, id, clean(r.JSON200.RequestID, p.redactor())), true
	default:
		a.info = r.JSON200
	}
	a.err = err
	return a
}

// redactor returns the client's redaction of the key, or nil.
func (p *Poller) redactor() func(string) string {
	if f := p.redact.Load(); f != nil {
		return *f
	}
	return nil
}

// report sends s, and the error ending the wait if any, to WithProgress.
func (p *Poller) report(s *Step, err error) {
	if p.cfg.progress == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfg.progress(Update{RequestID: s.RequestID, Status: s.Status, Attempt: s.Attempt, Message: message("", s.Info, nil),
		Next: s.Next, Reason: s.Reason, Err: cmp.Or(err, s.Err), Info: s.Info})
}
