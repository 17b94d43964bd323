package tensorpooltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// A Fault is a misbehaviour the engine shows on a request, instead of (or on
// top of) its normal answer. The zero Fault changes nothing. Faults act
// before authentication and validation, unless Process is set.
//
// Guess: where real faults happen is unknown; acting before authentication
// is what a rate limiter or gateway in front of the API does.
type Fault struct {
	// Latency delays the answer (in a synctest bubble, in fake time). The
	// request's context cancels the wait.
	Latency time.Duration
	// Status, if not 0, answers with this status (for example 429, 500, 502
	// or 503) instead of the operation's answer: an error status, 400 to 599,
	// with a {"detail": ...} JSON body (for 422, an HTTPValidationError).
	//
	// The answer is validated like any other, except for what the test chose:
	// a status the operation does not declare is not reported (nor is
	// anything about such an answer, unless the operation has a default
	// response), and neither is Retry-After, sent or not. For a declared
	// status, the engine's body and the other headers must conform.
	Status int
	// RetryAfter is sent verbatim as the Retry-After header of a Status
	// answer, if not empty: "3", an HTTP-date, or anything a test needs.
	RetryAfter string
	// Drop closes the connection without an answer (ServeHTTP) or makes
	// RoundTrip fail with an error wrapping io.ErrUnexpectedEOF. Note that
	// net/http's Transport may resend an idempotent request (GET, DELETE)
	// by itself when a reused connection drops, so over loopback the client
	// may never see the error; the in-process transport never resends.
	Drop bool
	// Process runs the operation for real (its request ids are issued, its
	// effects scheduled) before Status or Drop replace the answer: the case
	// of a gateway timing out on a server that did the work.
	Process bool
	// MalformedJSON cuts the JSON answer in half (the operation's, or the
	// Status answer's), keeping its status and Content-Type.
	MalformedJSON bool
	// UnknownStatus replaces the "status" field of the operation's answer
	// (GET /request/info) with this value, which the spec's enum lacks.
	UnknownStatus string
	// NullRequestID sends "request_id": null in the operation's answer
	// (DELETE /storage/{storage_id}), as the spec allows: the operation
	// runs as usual, but the caller has no request to wait for.
	NullRequestID bool
}

// InjectFault makes the next n requests of operation op misbehave as f
// says. op is a "METHOD /path" key as in the OpenAPI document (e.g.
// "POST /storage/attach"), an operationId, or the operation's name in gen
// ("StorageAttach"). Faults queue: a later InjectFault on the same
// operation acts after the earlier ones are used up; ClearFaults drops them.
//
// Server.Client, the production client, absorbs 3 answers in a row of a
// 429 (and, to a GET, of a 408, 425, 500, 502, 503 or 504), waiting their
// RetryAfter (see tensorpool.DefaultRetryPolicy): inject 4 to see its
// *tensorpool.APIError, or send through RawClient.
//
// It panics if the document has no such operation, if op names several
// equally closely (two operationIds with one Go name: pass one as written),
// on a negative n, and on a Status outside 400-599 (net/http treats a 1xx as
// informational, and a 2xx or 3xx with an error body is no fault the API
// could show).
func (e *Engine) InjectFault(op string, n int, f Fault) {
	key := e.spec.key("InjectFault", op)
	if n < 0 {
		panic(fmt.Sprintf("tensorpooltest: InjectFault: negative count %d", n))
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		panic(fmt.Sprintf("tensorpooltest: InjectFault: Status %d is not an error status (400-599)", f.Status))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for range n {
		e.faults[key] = append(e.faults[key], f)
	}
}

// ClearFaults drops every injected fault and scripted answer (Respond) not
// yet used, for the next scenario, and returns how many there were.
func (e *Engine) ClearFaults() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, q := range e.faults {
		n += len(q)
	}
	for _, q := range e.answers {
		n += len(q)
	}
	clear(e.faults)
	clear(e.answers)
	return n
}

// result is a Status fault's answer to a request of rt: {"detail": ...},
// or the body the document declares for the status.
func (f Fault) result(rt *route) *result {
	msg := fmt.Sprintf("injected fault: %d %s", f.Status, http.StatusText(f.Status))
	var detail any = msg
	if f.Status == http.StatusUnprocessableEntity { // FastAPI's shape for 422
		detail = []validationItem{{Loc: []any{"body"}, Msg: msg, Type: "value_error"}}
	}
	res := rt.failure(f.Status, detail, msg)
	if f.RetryAfter != "" {
		res.header.Set("Retry-After", f.RetryAfter)
	}
	// The status and Retry-After are the test's choice: 429, 502 and 503
	// are declared by no operation.
	res.undeclared, res.anyRetryAfter = true, true
	return res
}

// mangle applies the faults that corrupt an answer.
func (f Fault) mangle(res *result) *result {
	var body map[string]any
	if (f.UnknownStatus != "" || f.NullRequestID) && json.Unmarshal(res.body, &body) == nil {
		if _, ok := body["status"]; ok && f.UnknownStatus != "" {
			body["status"] = f.UnknownStatus
			res.unchecked = true
		}
		if _, ok := body["request_id"]; ok && f.NullRequestID {
			body["request_id"] = nil // valid where the spec allows it, and validated
		}
		res.body, _ = json.Marshal(body)
	}
	if f.MalformedJSON {
		res.body = res.body[:len(res.body)/2]
		res.unchecked = true
	}
	return res
}
