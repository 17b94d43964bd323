package tensorpooltest

import (
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
	l := Succeed(pending, processing)
	l[2] = Phase{Status: gen.RequestStatusFAILED, Message: message}
	return l
}

func terminal(s gen.RequestStatus) bool {
	return s == gen.RequestStatusCOMPLETED || s == gen.RequestStatusFAILED
}

// own returns a copy of l, which the caller can no longer change. It panics
// if l is malformed.
func (l Lifecycle) own() Lifecycle {
	if len(l) == 0 {
		panic("tensorpooltest: empty Lifecycle")
	}
	for i, p := range l {
		switch {
		case !p.Status.Valid():
			panic(fmt.Sprintf("tensorpooltest: Lifecycle phase %d: unknown status %q", i, p.Status))
		case p.For < 0:
			panic(fmt.Sprintf("tensorpooltest: Lifecycle phase %d: negative duration", i))
		case terminal(p.Status) != (i == len(l)-1):
			panic(fmt.Sprintf("tensorpooltest: Lifecycle phase %d (%s): only the last phase is, and must be, terminal", i, p.Status))
		}
	}
	return slices.Clone(l)
}

// QueueLifecycles sets the lifecycles of the next asynchronous requests the
// engine creates, in order, one each; later requests get the engine's
// default (WithLifecycle). It panics on a malformed lifecycle. The engine
// keeps copies: changing ls afterwards changes nothing.
func (e *Engine) QueueLifecycles(ls ...Lifecycle) {
	own := make([]Lifecycle, len(ls))
	for i, l := range ls {
		own[i] = l.own()
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
	l = l.own()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(time.Now())
	r, ok := e.requests[requestID]
	if !ok || r.ended {
		return false
	}
	r.lifecycle = l
	e.advance(time.Now()) // the new lifecycle may have ended already
	return true
}

// asyncRequest is one entry of /request/info.
type asyncRequest struct {
	id        string
	typ       gen.RequestType
	volume    *Storage
	cluster   *Cluster // an attach's target; nil for a destroy
	object    string   // its object_id: the volume's, or the first path parameter of an operation the engine does not model
	created   time.Time
	lifecycle Lifecycle
	effect    func() // applies the change, once, with e.mu held, if the request completes
	ended     bool   // the request is terminal, and its effect applied if it completed

	pendingMsg, doneMsg string // the engine's own external_message wording
}

// newRequest registers an asynchronous request on volume s (and, for an
// attach, cluster cl), with e.mu held.
func (e *Engine) newRequest(now time.Time, typ gen.RequestType, s *Storage, cl *Cluster) *asyncRequest {
	l := e.lifecycle
	if len(e.queued) > 0 {
		l, e.queued = e.queued[0], e.queued[1:]
	}
	r := &asyncRequest{
		// Guess: the seed's example flow shows "req_abc123"; the engine's
		// ids are "req_" and a counter, unique per engine.
		id:  fmt.Sprintf("req_%06d", len(e.order)+1),
		typ: typ, volume: s, cluster: cl, created: now, lifecycle: l,
	}
	if s != nil {
		r.object = s.ID
	}
	e.requests[r.id] = r
	e.order = append(e.order, r)
	return r
}

// busy returns the id of the oldest request in flight on volume s or to
// cluster cl (either may be nil), or "".
func (e *Engine) busy(s *Storage, cl *Cluster) string {
	for _, r := range e.order {
		if !r.ended && (s != nil && r.volume == s || cl != nil && r.cluster == cl) {
			return r.id
		}
	}
	return ""
}

// phase is the request's phase at now.
func (r *asyncRequest) phase(now time.Time) Phase {
	t := r.created
	for _, p := range r.lifecycle[:len(r.lifecycle)-1] {
		if t = t.Add(p.For); p.For > 0 && now.Before(t) {
			return p
		}
	}
	return r.lifecycle[len(r.lifecycle)-1]
}

// advance ends every request that reached its terminal status by now, and
// applies the effect of each that completed. Requests in flight never share
// a cluster, nor a volume but for one attach's, so their effects commute.
// Nothing runs in the background: every entry point calls advance first,
// which is what lets the engine run inside a synctest bubble.
func (e *Engine) advance(now time.Time) {
	for _, r := range e.order {
		if r.ended {
			continue
		}
		if p := r.phase(now); terminal(p.Status) {
			r.ended = true
			// Guess: a FAILED request changes nothing (no partial attach);
			// the seeds only say FAILED is terminal.
			if p.Status == gen.RequestStatusCOMPLETED && r.effect != nil {
				r.effect()
			}
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
		res := c.fail(http.StatusNotFound, "Request %s not found", id)
		res.undeclared = true
		return res
	}
	phase := r.phase(c.now)
	msg := phase.Message
	if msg == "" {
		switch phase.Status {
		case gen.RequestStatusCOMPLETED:
			msg = r.doneMsg
		case gen.RequestStatusFAILED:
			msg = "Request failed" // Guess: wording, like the others
		case gen.RequestStatusPENDING:
			// Guess: null until the work starts.
		default:
			msg = r.pendingMsg
		}
	}
	res := jsonResult(http.StatusOK, map[string]any{
		"request_id":   r.id,
		"request_type": r.typ,
		"status":       phase.Status,
		// Guess: "ISO format" in the spec; RFC 3339 in UTC with
		// microseconds, close to Python's datetime.isoformat().
		"created_at":       r.created.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		"object_id":        nullable(r.object), // Guess: the spec says "cluster/storage"
		"external_message": nullable(msg),
	})
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
	case RetryAfterHTTPDate:
		// HTTP-dates have whole seconds. The answer's Date is now, truncated
		// as any server's is, and Retry-After is that Date plus the delay
		// rounded up, as in the seconds form: a client measuring against
		// Date (as RFC 9110 §10.2.3 intends) waits at least the delay.
		date := now.Truncate(time.Second)
		res.header.Set("Date", date.UTC().Format(http.TimeFormat))
		at := date.Add(time.Duration(ceilSeconds(e.retryAfter)-1) * time.Second).Add(time.Second) // no overflow
		res.header.Set("Retry-After", at.UTC().Format(http.TimeFormat))
		// The spec declares an integer. RFC 9110 also allows an HTTP-date,
		// and clients must be tested against both.
		res.anyRetryAfter = true
	case RetryAfterSeconds:
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
