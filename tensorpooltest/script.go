package tensorpooltest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"time"
)

// An Answer is a response a test scripts for the next request of an
// operation (Engine.Respond), instead of the engine's own.
type Answer struct {
	// Status is the status; 0 is the lowest 2xx the operation declares.
	Status int
	// Header is added to the answer's headers.
	Header http.Header
	// Body is the body: a json.RawMessage or []byte as it is, anything else
	// marshalled as JSON. nil is the document's: the media type's example,
	// else the schema's, else a value built from the schema of Status (for
	// an error status, {"detail": ...} where the document allows it).
	Body any
	// Handler, if set, answers instead of the fields above, from the request
	// as the engine received it, without the API key.
	Handler http.HandlerFunc
}

// Respond queues answers for the next requests of op (named as for
// InjectFault), one each, after any queued before. An answer comes before
// authentication and validation, like a fault, and a fault of the same
// request acts on top of it. It is validated as the engine's own, but for
// its status and Retry-After, the test's choice. ClearFaults drops the
// answers not yet used.
func (e *Engine) Respond(op string, answers ...Answer) {
	key := e.spec.key("Respond", op)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answers[key] = append(e.answers[key], answers...)
}

// result is the answer a to r, a request of rt, as received but for the
// API key.
func (a Answer) result(e *Engine, rt *route, r *http.Request, params map[string]string) *result {
	if a.Handler != nil { // instead of the fields
		w := httptest.NewRecorder()
		a.Handler(w, r)
		return &result{status: w.Code, header: w.Header(), body: w.Body.Bytes(), undeclared: true, anyRetryAfter: true}
	}
	status := cmp.Or(a.Status, rt.success)
	var res *result
	switch body := a.Body.(type) {
	case nil:
		if status >= 400 {
			msg := fmt.Sprintf("scripted answer: %d %s", status, http.StatusText(status))
			res = rt.failure(status, msg, msg)
			break
		}
		res = rt.answer(status)
		e.mu.Lock()
		e.issue(rt, res, time.Now(), params)
		e.mu.Unlock()
	case json.RawMessage, []byte:
		res = jsonResult(status, nil)
		res.body = []byte(fmt.Sprintf("%s", body))
	default:
		res = jsonResult(status, body)
	}
	for k, v := range a.Header {
		res.header[k] = v
	}
	res.undeclared, res.anyRetryAfter = true, true
	return res
}

// A Request is a request an operation received, as the engine read it:
// without the API key, which reads "[REDACTED]" wherever else it was, in
// any escaped form (the rule of NewClient's errors).
type Request struct {
	Method, Path string // the path as sent, escaped
	Query        url.Values
	Header       http.Header // without Authorization
	Body         []byte      // at most 1 MiB
}

// record keeps r as a request of rt, with e.mu held; serve adds its body.
func (e *Engine) record(rt *route, r *http.Request) int {
	q, _ := url.ParseQuery(r.URL.RawQuery) // decoded first: the key in any escape is then the key
	req := Request{Method: r.Method, Path: e.hide(r.URL.EscapedPath()), Header: e.hidden(r.Header), Query: e.hidden(q)}
	delete(req.Header, "Authorization")
	e.sent[rt.key] = append(e.sent[rt.key], req)
	return len(e.sent[rt.key]) - 1
}

// hidden is a copy of m with the key redacted in its names and values.
func (e *Engine) hidden(m map[string][]string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, vs := range m {
		for _, v := range vs {
			out[e.hide(k)] = append(out[e.hide(k)], e.hide(v))
		}
	}
	return out
}

// Requests returns the requests operation op received so far, in order,
// faults and retries included; op is named as for InjectFault.
func (e *Engine) Requests(op string) []Request { return e.received("Requests", op) }

func (e *Engine) received(fn, op string) []Request {
	key := e.spec.key(fn, op)
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.sent[key])
}
