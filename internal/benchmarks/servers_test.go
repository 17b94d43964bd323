package benchmarks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/tensorpooltest"
)

// requestInfoOp is the operation every poll calls.
const requestInfoOp = "GET /request/info/{request_id}"

// A backend answers GET /request/info and lets a scenario change its
// Retry-After policy and script bursts of failures, the way
// tensorpooltest.Engine does (SetRetryAfter, InjectFault).
type backend interface {
	http.RoundTripper
	setHint(hint)
	inject(burst)
}

// engineBackend is the real in-memory engine, validating every request and
// answer against the OpenAPI document (about 0.45 ms of CPU per poll).
type engineBackend struct{ *tensorpooltest.Engine }

func (e engineBackend) setHint(h hint) { e.SetRetryAfter(h.d, h.form) }
func (e engineBackend) inject(b burst) {
	e.InjectFault(requestInfoOp, b.n, tensorpooltest.Fault{Status: b.status, RetryAfter: b.retryAfter})
}

// newEngineRequests starts an engine with the starting hint and creates one
// asynchronous request (a storage destroy) per lifecycle, returning their ids.
// Call it inside the bubble: the requests' clocks start at its time.Now().
func newEngineRequests(tb tensorpooltest.TB, start hint, ls []tensorpooltest.Lifecycle) (engineBackend, []string) {
	e := tensorpooltest.New(tensorpooltest.WithRetryAfter(start.d, start.form),
		tensorpooltest.WithViolationHandler(func(v tensorpooltest.Violation) { tb.Errorf("%v", v) }))
	c, err := gen.NewClientWithResponses(tensorpooltest.InProcessURL, gen.WithHTTPClient(e.HTTPClient()), gen.WithRequestEditorFn(authEditor))
	if err != nil {
		tb.Fatalf("%v", err)
	}
	ids := make([]string, len(ls))
	e.QueueLifecycles(ls...)
	for i := range ls {
		sid := fmt.Sprintf("s-%d", i)
		e.AddStorage(tensorpooltest.Storage{ID: sid})
		r, err := c.StorageDestroyWithResponse(context.Background(), sid)
		if err != nil || r.JSON202 == nil || r.JSON202.RequestID == nil {
			tb.Fatalf("storage destroy: %v (status %d)", err, r.StatusCode())
		}
		ids[i] = *r.JSON202.RequestID
	}
	return engineBackend{e}, ids
}

// lightServer answers GET /request/info the way the engine does (the same
// statuses over time, the same JSON fields, Date, Retry-After in the three
// forms, the same fault answers) without routing or OpenAPI validation: a
// responder cheap enough for a million polls, and for measuring the
// client's own cost. TestLightServerMatchesEngine keeps it honest.
type lightServer struct {
	mu       sync.Mutex
	requests map[string]*lightRequest
	hint     hint
	faults   []burst // each with n == 1
	// overload: until this moment every answer is a 503 with Retry-After
	// overloadRA (none if empty), an overloaded server (TestBenchStorm).
	overload   time.Time
	overloadRA string
}

type lightRequest struct {
	id, objectID string
	created      time.Time
	lifecycle    tensorpooltest.Lifecycle
}

func newLightServer(start hint) *lightServer {
	return &lightServer{requests: map[string]*lightRequest{}, hint: start}
}

// add registers a request created now, the destruction of storage volume
// "s-<n>" for the n-th request from 0 (as newEngineRequests does); its id is
// "req_" and a counter, as the engine's.
func (s *lightServer) add(l tensorpooltest.Lifecycle) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.requests)
	id := fmt.Sprintf("req_%06d", n+1)
	s.requests[id] = &lightRequest{id: id, objectID: fmt.Sprintf("s-%d", n), created: time.Now(), lifecycle: l}
	return id
}

// message is the engine's external_message for a storage destroy.
func (r *lightRequest) message(p tensorpooltest.Phase) string {
	switch {
	case p.Message != "":
		return p.Message
	case p.Status == gen.RequestStatusPENDING:
		return ""
	case p.Status == gen.RequestStatusCOMPLETED:
		return "Storage " + r.objectID + " destroyed"
	case p.Status == gen.RequestStatusFAILED:
		return "Request failed"
	}
	return "Destroying storage " + r.objectID
}

func (s *lightServer) setHint(h hint) {
	s.mu.Lock()
	s.hint = h
	s.mu.Unlock()
}

func (s *lightServer) inject(b burst) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range b.n {
		s.faults = append(s.faults, burst{n: 1, status: b.status, retryAfter: b.retryAfter})
	}
}

var errNoKey = errors.New("lightServer: missing API key")

func (s *lightServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	if r.Header.Get("Authorization") != "Bearer "+tensorpooltest.DefaultAPIKey {
		return nil, errNoKey
	}
	now := time.Now()
	h := make(http.Header, 4)
	h["Date"] = []string{now.UTC().Format(http.TimeFormat)}
	h["Content-Type"] = []string{"application/json"}

	s.mu.Lock()
	var fault *burst
	switch {
	case now.Before(s.overload):
		fault = &burst{status: http.StatusServiceUnavailable, retryAfter: s.overloadRA}
	case len(s.faults) > 0:
		fault = &s.faults[0]
		s.faults = s.faults[1:]
	}
	if f := fault; f != nil {
		s.mu.Unlock()
		if f.retryAfter != "" {
			h["Retry-After"] = []string{f.retryAfter}
		}
		return respond(r, f.status, h, fmt.Appendf(nil, `{"detail":"injected fault: %d %s"}`, f.status, http.StatusText(f.status))), nil
	}
	id := requestID(r)
	req, ok := s.requests[id]
	ra := s.hint
	s.mu.Unlock()
	if !ok {
		return respond(r, http.StatusNotFound, h, fmt.Appendf(nil, `{"detail":"Request %s not found"}`, id)), nil
	}
	phase := phaseAt(req.lifecycle, req.created, now)
	if phase.Status != gen.RequestStatusCOMPLETED && phase.Status != gen.RequestStatusFAILED {
		switch ra.form {
		case tensorpooltest.RetryAfterSeconds:
			if ra.d%time.Second != 0 {
				// A decimal ("2.5"), which the engine does not send: the
				// economy set has it, the cross-check set does not.
				h["Retry-After"] = []string{strconv.FormatFloat(ra.d.Seconds(), 'f', -1, 64)}
				break
			}
			h["Retry-After"] = []string{strconv.FormatInt(int64(math.Ceil(ra.d.Seconds())), 10)}
		case tensorpooltest.RetryAfterHTTPDate:
			h["Retry-After"] = []string{now.Add(ra.d).UTC().Format(http.TimeFormat)}
		}
	}
	b := make([]byte, 0, 256)
	b = append(b, `{"created_at":"`...)
	b = req.created.UTC().AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
	b = append(b, `","external_message":`...)
	if msg := req.message(phase); msg != "" {
		b = strconv.AppendQuote(b, msg)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"object_id":`...)
	b = strconv.AppendQuote(b, req.objectID)
	b = append(b, `,"request_id":`...)
	b = strconv.AppendQuote(b, req.id)
	b = append(b, `,"request_type":"STORAGE_DESTROY","status":"`...)
	b = append(b, phase.Status...)
	b = append(b, `"}`...)
	return respond(r, http.StatusOK, h, b), nil
}

func respond(r *http.Request, status int, h http.Header, body []byte) *http.Response {
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	return &http.Response{
		Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: &bodyReader{b: body}, ContentLength: int64(len(body)), Request: r,
	}
}

// phaseAt is the phase a lifecycle started at created is in at now: the
// engine's rule (a phase of zero length is skipped; the terminal phase holds
// from the moment the others have run out).
func phaseAt(l tensorpooltest.Lifecycle, created, now time.Time) tensorpooltest.Phase {
	t := created
	for _, p := range l[:len(l)-1] {
		if p.For == 0 {
			continue
		}
		if t = t.Add(p.For); now.Before(t) {
			return p
		}
	}
	return l[len(l)-1]
}

// An observer sits between a client and a backend. It applies the
// scenario's events when their moment has come (before the poll that finds
// them due, so the order is deterministic), and records, per request id,
// every poll and whether it came earlier than the server's last answer
// allowed, and when the client first saw the request finished.
type observer struct {
	next   backend
	origin time.Time
	// traced: keep every answer in trace, for comparing backends.
	traced bool
	trace  []string

	mu     sync.Mutex
	events []event
	// A burst waits in deferred while the previous one is still being
	// served (faultsLeft) or a request id's last answer was a failure: a
	// scenario's bursts never merge into one longer run of failures for
	// any id.
	deferred   []burst
	faultsLeft int
	ids        map[string]*idRecord
	polls      int
	perSecond  []int // polls sent in each second since origin
}

// idRecord is what the observer knows of one request id.
type idRecord struct {
	polls, early int
	done         time.Time // when the request reaches its terminal status
	allowed      time.Time // the earliest poll the last answer allowed
	// inForce is the delay the last answer before done granted (0: that
	// answer carried no usable Retry-After).
	inForce time.Duration
	// failedAfterDone: a non-200 answer once the request had completed,
	// which delays its detection whatever the strategy.
	failedAfterDone bool
	// detected is the first 200 answer at or after done: the client has
	// seen the terminal status.
	detected time.Time
	// failing: the last answer was a failure.
	failing bool
}

// anyFailing reports whether some id's last answer was a failure, with
// o.mu held.
func (o *observer) anyFailing() bool {
	for _, r := range o.ids {
		if r.failing {
			return true
		}
	}
	return false
}

func newObserver(next backend, events []event) *observer {
	return &observer{next: next, origin: time.Now(), events: events, ids: map[string]*idRecord{}}
}

// track registers a request id and the moment it completes.
func (o *observer) track(id string, done time.Time) {
	o.mu.Lock()
	o.ids[id] = &idRecord{done: done}
	o.mu.Unlock()
}

func (o *observer) RoundTrip(r *http.Request) (*http.Response, error) {
	now := time.Now()
	id := requestID(r)
	o.mu.Lock()
	for len(o.events) > 0 && !o.origin.Add(o.events[0].at).After(now) {
		ev := o.events[0]
		o.events = o.events[1:]
		if ev.hint != nil {
			o.next.setHint(*ev.hint)
		} else {
			o.deferred = append(o.deferred, *ev.burst)
		}
	}
	if len(o.deferred) > 0 && o.faultsLeft == 0 && !o.anyFailing() {
		b := o.deferred[0]
		o.deferred = o.deferred[1:]
		o.next.inject(b)
		o.faultsLeft = b.n
	}
	rec := o.ids[id]
	if rec == nil {
		rec = &idRecord{}
		o.ids[id] = rec
	}
	o.polls++
	rec.polls++
	if sec := int(now.Sub(o.origin) / time.Second); sec >= 0 {
		for len(o.perSecond) <= sec {
			o.perSecond = append(o.perSecond, 0)
		}
		o.perSecond[sec]++
	}
	if now.Before(rec.allowed) {
		rec.early++
	}
	o.mu.Unlock()

	resp, err := o.next.RoundTrip(r)

	at := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	var granted time.Duration
	rec.allowed = time.Time{}
	if err == nil {
		if resp.StatusCode != http.StatusOK {
			rec.failedAfterDone = rec.failedAfterDone || !at.Before(rec.done)
			o.faultsLeft = max(o.faultsLeft-1, 0)
			rec.failing = true
		} else {
			rec.failing = false
			if !rec.done.IsZero() && !at.Before(rec.done) && rec.detected.IsZero() {
				rec.detected = at
			}
		}
		rec.allowed, granted = allowedAfter(resp.Header, at)
	}
	if at.Before(rec.done) {
		rec.inForce = granted
	}
	if o.traced {
		o.trace = append(o.trace, traceLine(resp, err, at.Sub(o.origin)))
	}
	return resp, err
}

// traceLine is what a client can see of an answer: status, the headers
// polling rules read, and the request's status in the body. It reads the
// body and puts it back.
func traceLine(resp *http.Response, err error, at time.Duration) string {
	if err != nil {
		return fmt.Sprintf("%v: error %v", at, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body = &bodyReader{b: body}
	var info struct {
		Status          string  `json:"status"`
		RequestID       string  `json:"request_id"`
		RequestType     string  `json:"request_type"`
		CreatedAt       string  `json:"created_at"`
		ObjectID        *string `json:"object_id"`
		ExternalMessage *string `json:"external_message"`
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &info); err != nil {
			return fmt.Sprintf("%v: %d undecodable body %q", at, resp.StatusCode, body)
		}
	}
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return strconv.Quote(*p)
	}
	return fmt.Sprintf("%v: %d Date=%q Retry-After=%q Content-Type=%q status=%s id=%s type=%s created=%s object=%s message=%s",
		at, resp.StatusCode, resp.Header.Get("Date"), resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"),
		info.Status, info.RequestID, info.RequestType, info.CreatedAt, str(info.ObjectID), str(info.ExternalMessage))
}

// allowedAfter reads the Retry-After of an answer received at: the earliest
// moment it allows the next request (delta-seconds from then, decimals
// included, or the
// HTTP-date itself) and the delay it grants (for an HTTP-date, measured
// against the answer's Date header, as RFC 9110 says: the engine writes
// both to the second). No header, or one that does not parse, allows any
// moment and grants nothing.
func allowedAfter(h http.Header, at time.Time) (time.Time, time.Duration) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return time.Time{}, 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "xXpPeE_") && !math.IsNaN(n) && !math.IsInf(n, 0) {
		// Delta-seconds, a decimal such as "2.5" included: a client that
		// reads it as 2 s polls early.
		d := time.Duration(max(n, 0) * float64(time.Second))
		return at.Add(d), d
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}, 0
	}
	from := at
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		from = date
	}
	return t, max(t.Sub(from), 0)
}

// requestID is the id a GET /request/info/{request_id} asks for.
func requestID(r *http.Request) string {
	id, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/request/info/"))
	return id
}
