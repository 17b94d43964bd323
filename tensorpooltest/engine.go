package tensorpooltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// DefaultAPIKey is the API key an engine accepts unless WithAPIKey says
// otherwise.
const DefaultAPIKey = "tp-test-key"

// maxBody caps what the engine reads of a request body; a longer body is cut
// and fails validation. Guess: upstream's limit is unknown; 1 MiB is far
// above any body the spec describes.
const maxBody = 1 << 20

// Engine is an in-memory TensorPool API. It serves every operation of its
// OpenAPI document: the ones it models with their documented behaviour, the
// others with 501 Not Implemented. It validates every request and response
// against the document.
//
// An Engine is an http.Handler (serve it with httptest or http.Server) and an
// http.RoundTripper (use it in-process, without sockets, for example inside
// a testing/synctest bubble). It reads time only through package time and
// starts no goroutines: asynchronous requests advance lazily, from
// time.Now(), whenever the engine is called.
//
// Its methods are safe for concurrent use.
type Engine struct {
	spec   *spec
	apiKey string

	onViolation func(Violation)

	mu         sync.Mutex
	storages   map[string]*storage
	clusters   map[string]*cluster
	requests   map[string]*asyncRequest
	order      []*asyncRequest // creation order; effects apply in terminal-time order
	nextID     int
	lifecycle  Lifecycle   // for requests with nothing queued
	queued     []Lifecycle // for the next requests, first come first served
	retryAfter time.Duration
	raForm     RetryAfterForm
	faults     map[string][]Fault // by "METHOD /path" key
	calls      map[string]int     // by "METHOD /path" key
	violations []Violation
	handlers   map[string]handler
}

// New returns an engine with no storage volumes, clusters or requests. It
// panics if the OpenAPI document (see WithSpec) does not load or an
// operation it models is invalid: the vendored one always loads.
func New(opts ...Option) *Engine {
	c := config{apiKey: DefaultAPIKey, lifecycle: DefaultLifecycle(), retryAfter: 2 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	s, err := loadSpec(c.spec)
	if err != nil {
		panic(err)
	}
	c.lifecycle = slices.Clone(c.lifecycle) // the caller's slice may change
	if err := c.lifecycle.check(); err != nil {
		panic(err)
	}
	return &Engine{
		spec:        s,
		apiKey:      c.apiKey,
		onViolation: c.onViolation,
		storages:    map[string]*storage{},
		clusters:    map[string]*cluster{},
		requests:    map[string]*asyncRequest{},
		lifecycle:   c.lifecycle,
		retryAfter:  c.retryAfter,
		raForm:      c.raForm,
		faults:      map[string][]Fault{},
		calls:       map[string]int{},
		handlers:    handlers(),
	}
}

// APIKey returns the API key the engine accepts.
func (e *Engine) APIKey() string { return e.apiKey }

// SetRetryAfter changes the Retry-After header of later GET /request/info
// answers (see WithRetryAfter). It panics on a negative d or an unknown form.
func (e *Engine) SetRetryAfter(d time.Duration, form RetryAfterForm) {
	checkRetryAfter("SetRetryAfter", d, form)
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

func (e *Engine) report(v Violation) {
	e.mu.Lock()
	e.violations = append(e.violations, v)
	e.mu.Unlock()
	if e.onViolation != nil {
		e.onViolation(v)
	}
}

// Calls returns how many requests reached the operation op, faults
// included: op is its "METHOD /path" key ("GET /request/info/{request_id}"),
// its operationId, or its name in gen ("GetRequestInfo"). Retries are
// counted one by one. Like InjectFault, it panics if the document has no
// such operation, so a misspelt op cannot pass for an operation never
// called, or if op names several equally closely.
func (e *Engine) Calls(op string) int {
	key := e.spec.key("Calls", op)
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[key]
}

// result is a response before it is written, so it can be validated and
// replaced by a fault first.
type result struct {
	status int
	header http.Header
	body   []byte

	// undeclared says why the engine answers with a status the operation
	// does not declare; response validation then accepts the status.
	undeclared string
	// skipValidation says why the response must not be validated at all
	// (it is deliberately malformed, by an injected fault).
	skipValidation string
	// retryAfterDate marks a Retry-After sent as an HTTP-date.
	retryAfterDate bool
	// exemptRetryAfter leaves Retry-After, present or not, out of response
	// validation.
	exemptRetryAfter bool
}

// jsonResult is a JSON response. v must marshal.
func jsonResult(status int, v any) *result {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	return &result{status: status, header: h, body: b}
}

// errorResult is an error response.
//
// Guess: the spec declares 400, 403, 404, 409 and 500 without content. The
// engine answers them the way FastAPI's HTTPException does, with
// {"detail": "<message>"} as application/json (the third-party Swift client
// decodes ErrorResponse{detail,message}, which agrees).
func errorResult(status int, format string, args ...any) *result {
	return jsonResult(status, map[string]string{"detail": fmt.Sprintf(format, args...)})
}

// errDropped is serve's answer when a fault drops the connection.
var errDropped = errors.New("tensorpooltest: connection dropped by an injected fault")

// serve answers one request; both ServeHTTP and RoundTrip call it.
func (e *Engine) serve(r *http.Request) (*result, error) {
	res, err := e.route(r)
	if err != nil {
		return nil, err
	}
	if res.header.Get("Date") == "" {
		// Sent by net/http servers anyway; set here from time.Now() so the
		// in-process transport has it too, and clients can compare it with
		// an HTTP-date Retry-After.
		res.header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	res.header.Set("Content-Length", strconv.Itoa(len(res.body)))
	return res, nil
}

// route finds the operation of a request, applies any fault, and answers.
func (e *Engine) route(r *http.Request) (*result, error) {
	ctx := r.Context()
	if r.URL.Path == healthzPath && e.spec.doc.Paths.Value(healthzPath) == nil { // before a template that would take it (/{id})
		return healthz(r), nil
	}
	rt, params, err := e.spec.find(r.Method, r.URL)
	if err != nil {
		var mna errMethodNotAllowed
		if errors.As(err, &mna) {
			res := errorResult(http.StatusMethodNotAllowed, "Method Not Allowed")
			for _, m := range mna.allow {
				res.header.Add("Allow", m)
			}
			return res, nil
		}
		if errors.Is(err, routers.ErrPathNotFound) {
			// Guess: FastAPI's answer to a path it does not route (and 405
			// above for a known path under another method); no operation,
			// so nothing to validate against.
			return errorResult(http.StatusNotFound, "Not Found"), nil
		}
		return errorResult(http.StatusBadRequest, "bad path: %v", err), nil
	}

	e.mu.Lock()
	e.calls[rt.key]++
	f, faulted := e.takeFault(rt.key)
	e.mu.Unlock()

	if faulted && f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	if faulted && f.Drop && !f.Process {
		return nil, errDropped
	}
	if faulted && f.Status != 0 && !f.Process {
		res := f.result()
		e.validateResponse(ctx, rt, &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: rt.kr}, res)
		return res, nil
	}

	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, err
	}
	res, in := e.answer(ctx, r, rt, params, body)
	if faulted {
		if f.Drop {
			return nil, errDropped // the work is done, the answer lost
		}
		if f.Status != 0 {
			res = f.result()
		} else {
			res = f.mangle(res)
		}
	}
	e.validateResponse(ctx, rt, in, res)
	return res, nil
}

// answer validates a request and runs its operation. It returns the
// validation input too, which response validation needs.
func (e *Engine) answer(ctx context.Context, r *http.Request, rt *route, params map[string]string, body []byte) (*result, *openapi3filter.RequestValidationInput) {
	in, authed, err := e.validateRequest(ctx, r, rt, params, body)
	// Guess: authentication is checked before the request's shape (403
	// before 422), as FastAPI's HTTPBearer dependency does.
	if !authed {
		// The seeds: every endpoint but /healthz requires the key; attach
		// and destroy declare 403 "Access denied" (and no 401). Guess: the
		// body's wording. The message never repeats what the client sent.
		res := errorResult(http.StatusForbidden, "Access denied: missing or wrong API key")
		if rt.kr.Operation.Responses.Status(http.StatusForbidden) == nil {
			// Guess: an operation that declares no 403 (request info)
			// answers a bad key as the others do.
			res.undeclared = "403 answers a missing or wrong API key on every operation"
		}
		return res, in
	}
	if err != nil {
		res := jsonResult(http.StatusUnprocessableEntity, map[string]any{"detail": validationDetail(err)})
		return res, in
	}
	h, ok := e.handlers[rt.key]
	if !ok {
		res := errorResult(http.StatusNotImplemented,
			"tensorpooltest: operation %s is in the OpenAPI document but the engine does not implement it", rt.opName())
		res.undeclared = "501 answers an operation the engine does not model"
		return res, in
	}
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(now)
	return h(e, &call{now: now, params: params, body: body}), in
}

// healthzPath is the API's health check: the seeds name it as the one
// endpoint that needs no API key, but the OpenAPI document does not list it.
const healthzPath = "/healthz"

// healthz answers the health check, with no authentication: GET gets 200
// and {"status":"ok"}, any other method 405. A document that declares
// /healthz itself is routed like any other operation instead.
//
// Guess: the docs give no shape for the body (nor its content type); the
// engine sends a small JSON object, so a probe that only checks for 200
// and JSON works against it.
func healthz(r *http.Request) *result {
	if r.Method != http.MethodGet {
		res := errorResult(http.StatusMethodNotAllowed, "Method Not Allowed")
		res.header.Set("Allow", http.MethodGet)
		return res
	}
	return jsonResult(http.StatusOK, map[string]string{"status": "ok"})
}

// call is what a handler gets: the validated request.
type call struct {
	now    time.Time
	params map[string]string
	body   []byte
}

// handler runs one operation with e.mu held.
type handler func(e *Engine, c *call) *result

// handlers are the operations the engine models, by "METHOD /path" key. An
// operation of the document that is not here answers 501; a key here that
// the document lacks is never routed to.
func handlers() map[string]handler {
	return map[string]handler{
		"POST /storage/attach":           (*Engine).storageAttach,
		"DELETE /storage/{storage_id}":   (*Engine).storageDestroy,
		"GET /request/info/{request_id}": (*Engine).requestInfo,
	}
}
