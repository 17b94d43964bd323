package tensorpooltest

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// A Phase is one status an asynchronous request holds, and for how long.
type Phase struct {
	// Status is the request's status during this phase.
	Status gen.RequestStatus
	// For is how long the request stays in this status; ignored for the last
	// (terminal) phase.
	For time.Duration
	// Message is the request's external_message during this phase; empty
	// means the engine's own wording (null while pending).
	Message string
}

// A Lifecycle is the sequence of statuses an asynchronous request goes
// through, from its creation: non-terminal phases (PENDING, PROCESSING,
// RETRYING, in any order and number), then one terminal phase (COMPLETED or
// FAILED). The request's effect (attach, destroy) applies when it reaches
// COMPLETED; a FAILED request changes nothing.
type Lifecycle []Phase

// DefaultLifecycle is PENDING for 1s, PROCESSING for 2s, then COMPLETED.
//
// Guess: the seeds give no durations; these are short enough for a demo
// against the engine and long enough to need a few polls.
func DefaultLifecycle() Lifecycle { return Succeed(time.Second, 2*time.Second) }

// Succeed is PENDING for pending, PROCESSING for processing, then COMPLETED.
// A zero duration skips its phase.
func Succeed(pending, processing time.Duration) Lifecycle {
	return Lifecycle{
		{Status: gen.RequestStatusPENDING, For: pending},
		{Status: gen.RequestStatusPROCESSING, For: processing},
		{Status: gen.RequestStatusCOMPLETED},
	}
}

// Fail is PENDING for pending, PROCESSING for processing, then FAILED with
// message as the external_message.
func Fail(pending, processing time.Duration, message string) Lifecycle {
	return Lifecycle{
		{Status: gen.RequestStatusPENDING, For: pending},
		{Status: gen.RequestStatusPROCESSING, For: processing},
		{Status: gen.RequestStatusFAILED, Message: message},
	}
}

func terminal(s gen.RequestStatus) bool {
	return s == gen.RequestStatusCOMPLETED || s == gen.RequestStatusFAILED
}

func (l Lifecycle) check() error {
	if len(l) == 0 {
		return errors.New("tensorpooltest: empty Lifecycle")
	}
	for i, p := range l {
		if !p.Status.Valid() {
			return fmt.Errorf("tensorpooltest: Lifecycle phase %d: unknown status %q", i, p.Status)
		}
		if p.For < 0 {
			return fmt.Errorf("tensorpooltest: Lifecycle phase %d: negative duration", i)
		}
		if last := i == len(l)-1; terminal(p.Status) != last {
			return fmt.Errorf("tensorpooltest: Lifecycle phase %d (%s): only the last phase is, and must be, terminal", i, p.Status)
		}
	}
	return nil
}

// at returns the phase the lifecycle is in at now, given its start, and when
// that phase ends (for the terminal phase: when it began).
func (l Lifecycle) at(start time.Time, now time.Time) (Phase, time.Time) {
	t := start
	for _, p := range l[:len(l)-1] {
		if p.For == 0 {
			continue
		}
		if now.Before(t.Add(p.For)) {
			return p, t.Add(p.For)
		}
		t = t.Add(p.For)
	}
	return l[len(l)-1], t
}

// end is when the lifecycle reaches its terminal phase.
func (l Lifecycle) end(start time.Time) time.Time {
	t := start
	for _, p := range l[:len(l)-1] {
		t = t.Add(p.For)
	}
	return t
}

// QueueLifecycles sets the lifecycles of the next asynchronous requests the
// engine creates, in order, one each; later requests get the engine's
// default (WithLifecycle). It panics on a malformed lifecycle. The engine
// keeps copies: changing ls afterwards changes nothing.
func (e *Engine) QueueLifecycles(ls ...Lifecycle) {
	own := make([]Lifecycle, len(ls))
	for i, l := range ls {
		own[i] = slices.Clone(l)
		if err := own[i].check(); err != nil {
			panic(err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.queued = append(e.queued, own...)
}

// SetLifecycle replaces the lifecycle of an existing request, counted from
// the request's creation. It reports whether the request exists and had not
// already reached its terminal status; it panics on a malformed lifecycle.
// The engine keeps a copy of l.
func (e *Engine) SetLifecycle(requestID string, l Lifecycle) bool {
	l = slices.Clone(l)
	if err := l.check(); err != nil {
		panic(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(time.Now())
	r, ok := e.requests[requestID]
	if !ok || r.applied {
		return false
	}
	r.lifecycle = l
	e.advance(time.Now())
	return true
}

// asyncRequest is one entry of /request/info.
type asyncRequest struct {
	id        string
	typ       gen.RequestType
	objectID  string
	created   time.Time
	lifecycle Lifecycle
	// effect applies the request's change of state when it completes; it
	// runs with e.mu held, once.
	effect  func()
	release func() // runs at the terminal status whatever it is; may be nil
	applied bool   // effect (or failure) has been applied
	// messages are the engine's own external_message wording.
	pendingMsg, doneMsg string
}

// newRequest registers an asynchronous request, with e.mu held.
func (e *Engine) newRequest(now time.Time, typ gen.RequestType, objectID string) *asyncRequest {
	e.nextID++
	l := e.lifecycle
	if len(e.queued) > 0 {
		l, e.queued = e.queued[0], e.queued[1:]
	}
	r := &asyncRequest{
		// Guess: the seed's example flow shows "req_abc123"; the engine's
		// ids are "req_" and a counter, unique per engine.
		id:        fmt.Sprintf("req_%06d", e.nextID),
		typ:       typ,
		objectID:  objectID,
		created:   now,
		lifecycle: l,
	}
	e.requests[r.id] = r
	e.order = append(e.order, r)
	return r
}

// advance applies, in the order they happened, the effects of every request
// that reached its terminal status by now. Nothing runs in the background:
// every entry point calls advance first, which is what lets the engine run
// inside a synctest bubble.
func (e *Engine) advance(now time.Time) {
	var due []*asyncRequest
	for _, r := range e.order {
		if !r.applied && !r.lifecycle.end(r.created).After(now) {
			due = append(due, r)
		}
	}
	slices.SortStableFunc(due, func(a, b *asyncRequest) int {
		return a.lifecycle.end(a.created).Compare(b.lifecycle.end(b.created))
	})
	for _, r := range due {
		r.applied = true
		if r.release != nil {
			r.release()
		}
		// Guess: a FAILED request changes nothing (no partial attach); the
		// seeds only say FAILED is terminal.
		if final, _ := r.lifecycle.at(r.created, now); final.Status == gen.RequestStatusCOMPLETED && r.effect != nil {
			r.effect()
		}
	}
}

// requestInfo is GET /request/info/{request_id}.
func (e *Engine) requestInfo(c *call) *result {
	id := c.params["request_id"]
	r, ok := e.requests[id]
	if !ok {
		// Guess: the spec declares only 200 and 422 here; an unknown id
		// answers 404 like the other operations' "not found".
		res := errorResult(http.StatusNotFound, "Request %s not found", id)
		res.undeclared = "404 answers an unknown request id (the spec declares only 200 and 422)"
		return res
	}
	phase, _ := r.lifecycle.at(r.created, c.now)
	msg := phase.Message
	if msg == "" {
		switch phase.Status {
		case gen.RequestStatusCOMPLETED:
			msg = r.doneMsg
		case gen.RequestStatusFAILED:
			// Guess: wording, like the non-terminal ones below.
			msg = "Request failed"
		case gen.RequestStatusPENDING:
			// Guess: null until the work starts.
		default:
			msg = r.pendingMsg
		}
	}
	body := map[string]any{
		"request_id":   r.id,
		"request_type": r.typ,
		"status":       phase.Status,
		// Guess: "ISO format" in the spec; RFC 3339 in UTC with
		// microseconds, close to Python's datetime.isoformat().
		"created_at":       r.created.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		"object_id":        nullable(r.objectID),
		"external_message": nullable(msg),
	}
	res := jsonResult(http.StatusOK, body)
	if !terminal(phase.Status) {
		e.setRetryAfter(res, c.now)
	}
	return res
}

// setRetryAfter adds the configured Retry-After to a non-terminal answer.
//
// Guess: the engine sends the configured delay whatever the time left in the
// current phase; the seeds only say the header is there while the request is
// not terminal.
func (e *Engine) setRetryAfter(res *result, now time.Time) {
	switch e.raForm {
	case RetryAfterOmitted:
	case RetryAfterHTTPDate:
		// HTTP-dates have whole seconds. The answer's Date is now, truncated
		// as any server's is, and Retry-After is that Date plus the delay
		// rounded up, as in the seconds form: a client measuring against
		// Date (as RFC 9110 §10.2.3 intends) waits at least the delay.
		date := now.Truncate(time.Second)
		res.header.Set("Date", date.UTC().Format(http.TimeFormat))
		at := date.Add(time.Duration(ceilSeconds(e.retryAfter)-1) * time.Second).Add(time.Second) // no overflow
		res.header.Set("Retry-After", at.UTC().Format(http.TimeFormat))
		res.retryAfterDate = true
	default:
		// Guess: a fraction of a second rounds up, never to an earlier poll.
		res.header.Set("Retry-After", strconv.FormatInt(ceilSeconds(e.retryAfter), 10))
	}
}

// ceilSeconds is d (not negative) in whole seconds, rounded up, without the
// float rounding or overflow of math.Ceil(d.Seconds()) near the maximum.
func ceilSeconds(d time.Duration) int64 {
	secs := int64(d / time.Second)
	if d%time.Second != 0 {
		secs++
	}
	return secs
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
