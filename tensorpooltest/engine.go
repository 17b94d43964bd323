package tensorpooltest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/tensorpool/tensorpool-go/internal/keyredact"
)

// DefaultAPIKey is the API key an engine accepts unless WithAPIKey says
// otherwise.
const DefaultAPIKey = "tp-test-key"

// maxBody caps what the engine reads of a request body. A longer body is cut
// and fails validation. Guess: upstream's limit is unknown; 1 MiB is far
// above any body the spec describes.
const maxBody = 1 << 20

// Engine is an in-memory TensorPool API. It answers every operation of its
// OpenAPI document: the ones it models with their documented behaviour,
// the others as the document says. It validates every request and
// response against the document.
//
// An Engine is an http.Handler (serve it with httptest or http.Server) and an
// http.RoundTripper (use it in-process, without sockets, for example inside
// a testing/synctest bubble). It reads time only through package time and
// starts no goroutines: asynchronous requests advance lazily, from
// time.Now(), whenever the engine is called.
//
// Its methods are safe for concurrent use.
type Engine struct {
	config
	spec *spec

	mu         sync.Mutex
	storages   map[string]*Storage
	clusters   map[string]*Cluster
	requests   map[string]*asyncRequest
	order      []*asyncRequest      // in creation order
	queued     []Lifecycle          // for the next requests, first come first served
	faults     map[string][]Fault   // by operation key
	answers    map[string][]Answer  // by operation key
	sent       map[string][]Request // by operation key
	violations []Violation
	hide       func(string) string // the key redacted in any escaped form (internal/keyredact)
	hideBody   func([]byte) []byte
}

// New returns an engine with no storage volumes, clusters or requests. It
// panics on an option's value out of range, naming the option, and if the
// OpenAPI document (see WithSpec) does not load or an operation it models
// is invalid: the vendored one always loads.
func New(opts ...Option) *Engine {
	e := &Engine{
		config:   config{apiKey: DefaultAPIKey, lifecycle: DefaultLifecycle(), retryAfter: 2 * time.Second},
		storages: map[string]*Storage{},
		clusters: map[string]*Cluster{},
		requests: map[string]*asyncRequest{},
		faults:   map[string][]Fault{},
		answers:  map[string][]Answer{},
		sent:     map[string][]Request{},
	}
	for _, o := range opts {
		if o != nil {
			o(&e.config)
		}
	}
	if e.err != nil {
		panic(e.err)
	}
	e.lifecycle = e.lifecycle.own()
	_, e.hideBody, e.hide = keyredact.New(e.apiKey)
	var err error
	if e.spec, err = loadSpec(e.document); err != nil {
		panic(err)
	}
	return e
}

// APIKey returns the API key the engine accepts.
func (e *Engine) APIKey() string { return e.apiKey }

// SetRetryAfter changes the Retry-After header of later GET /request/info
// answers (see WithRetryAfter). It panics on a negative d or an unknown form.
func (e *Engine) SetRetryAfter(d time.Duration, form RetryAfterForm) {
	if why := checkRetryAfter(d, form); why != "" {
		panic("tensorpooltest: SetRetryAfter: " + why)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.retryAfter, e.raForm = d, form
}

// Violations returns every response so far that did not conform to the
// OpenAPI document.
func (e *Engine) Violations() []Violation {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Violation(nil), e.violations...)
}

// Calls returns how many requests reached the operation op, faults and
// retries included: len(Requests(op)). op is named as for InjectFault, and
// a misspelt one panics, so it cannot pass for an operation never called.
func (e *Engine) Calls(op string) int { return len(e.received("Calls", op)) }

// result is a response before it is written, so it can be validated and
// replaced by a fault first.
type result struct {
	status int
	header http.Header
	body   []byte

	undeclared    bool // a status the operation does not declare, on purpose: validation accepts it
	unchecked     bool // deliberately malformed by a fault: not validated
	anyRetryAfter bool // Retry-After, sent or not, is not validated
}

// jsonResult is a JSON response. v must marshal. Its Date header is the
// one net/http servers send, for the in-process transport too: clients
// compare it with an HTTP-date Retry-After.
func jsonResult(status int, v any) *result {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	h := http.Header{"Content-Type": {"application/json"}, "Date": {time.Now().UTC().Format(http.TimeFormat)}}
	return &result{status: status, header: h, body: b}
}

func methodNotAllowed(allow ...string) *result {
	res := jsonResult(http.StatusMethodNotAllowed, map[string]string{"detail": "Method Not Allowed"})
	res.header["Allow"] = allow
	return res
}

// errDropped is serve's error when a fault drops the connection.
var errDropped = fmt.Errorf("tensorpooltest: connection dropped by an injected fault: %w", io.ErrUnexpectedEOF)

// serve finds the operation of a request, applies any fault, and answers;
// both ServeHTTP and RoundTrip call it.
func (e *Engine) serve(r *http.Request) (*result, error) {
	// The health check: the seeds name it as the one endpoint that needs no
	// API key. The OpenAPI document does not list it; one that does routes
	// it as any other operation. It is checked before a template that would
	// take it (/{id}). Guess: the docs give no body; a small JSON object
	// suits a probe that checks for 200 and JSON.
	if r.URL.Path == "/healthz" && e.spec.doc.Paths.Value("/healthz") == nil {
		if r.Method != http.MethodGet {
			return methodNotAllowed(http.MethodGet), nil
		}
		return jsonResult(http.StatusOK, map[string]string{"status": "ok"}), nil
	}
	rt, params, allow := e.spec.find(r.Method, r.URL)
	if len(allow) > 0 {
		return methodNotAllowed(allow...), nil
	}
	if rt == nil {
		// Guess: FastAPI's answer to a path it does not route. There is no
		// operation to validate against.
		return jsonResult(http.StatusNotFound, map[string]string{"detail": "Not Found"}), nil
	}

	e.mu.Lock()
	i := e.record(rt, r) // before its body comes: Calls counts a request in flight
	var f Fault          // the zero Fault changes nothing
	if q := e.faults[rt.key]; len(q) > 0 {
		f, e.faults[rt.key] = q[0], q[1:]
	}
	var a *Answer
	if q := e.answers[rt.key]; len(q) > 0 {
		a, e.answers[rt.key] = &q[0], q[1:]
	}
	e.mu.Unlock()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.sent[rt.key][i].Body = e.hideBody(body)
	e.mu.Unlock()

	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return nil, r.Context().Err()
		}
	}
	var res *result
	switch {
	case f.Drop && !f.Process:
		return nil, errDropped
	case f.Status != 0 && !f.Process:
		res = f.result(rt)
	default:
		if a != nil {
			hr := r.Clone(r.Context())
			hr.Header.Del("Authorization")
			hr.Body = io.NopCloser(bytes.NewReader(body))
			res = a.result(e, rt, hr, params)
		} else {
			res = e.answer(r, rt, params, body)
		}
		if f.Drop {
			return nil, errDropped // the work is done, the answer lost
		}
		if f.Status != 0 {
			res = f.result(rt)
		}
	}
	res = f.mangle(res)
	e.validateResponse(r, rt, res)
	return res, nil
}

// answer authenticates and validates a request, then runs its operation.
func (e *Engine) answer(r *http.Request, rt *route, params map[string]string, body []byte) *result {
	// Guess: authentication comes before the request's shape (403 before
	// 422), as with FastAPI's HTTPBearer dependency.
	authed, invalid := e.validateRequest(r, rt, params, body)
	if !authed {
		// The seeds: every endpoint but /healthz requires the key; attach
		// and destroy declare 403 "Access denied" (and no 401). The
		// operation's declared 401 or 403 answers, else 403 (SpecProblems
		// says so). Guess: the wording. It never repeats what was sent.
		const msg = "Access denied: missing or wrong API key"
		res := rt.failure(cmp.Or(rt.unauthorized, http.StatusForbidden), msg, msg)
		res.undeclared = rt.unauthorized == 0
		return res
	}
	if len(invalid) > 0 {
		res := rt.failure(rt.invalid, invalid, "Invalid request: "+invalid[0].Msg)
		res.undeclared = rt.declared(rt.invalid) == 0
		return res
	}
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(now)
	if h, ok := handlers[rt.key]; ok {
		return h(e, &call{now: now, params: params, body: body, rt: rt})
	}
	return e.fromDocument(rt, now, params)
}

// call is what a handler gets: the validated request.
type call struct {
	now    time.Time
	params map[string]string
	body   []byte
	rt     *route
}

// fail is the operation's error answer with status and the message.
func (c *call) fail(status int, format string, args ...any) *result {
	msg := fmt.Sprintf(format, args...)
	return c.rt.failure(status, msg, msg)
}

// handler runs one operation with e.mu held.
type handler func(e *Engine, c *call) *result

// handlers are the operations the engine models, by operation key. Any
// other operation of the document answers as the document says
// (fromDocument).
var handlers = map[string]handler{
	"POST /storage/attach":           (*Engine).storageAttach,
	"DELETE /storage/{storage_id}":   (*Engine).storageDestroy,
	"GET /request/info/{request_id}": (*Engine).requestInfo,
}
