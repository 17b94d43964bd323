package tensorpool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/mediatype"
	"github.com/tensorpool/tensorpool-go/internal/retryafter"
	"github.com/tensorpool/tensorpool-go/internal/servertext"
)

const (
	// maxErrorBody caps APIError.Body and DecodeError.Body.
	maxErrorBody = 16 << 10
	// maxDetailsInMessage is how many 422 field errors Message summarises.
	maxDetailsInMessage = 3
)

// Response is what every generated ...Response type satisfies.
type Response interface {
	StatusCode() int
	GetBody() []byte
}

// Check turns the results of a generated ...WithResponse method into an
// error unless the call succeeded as the API spec says:
//
//	resp, err := tensorpool.Check(c.StorageAttachWithResponse(ctx, body))
//
// It returns a nil error only for a success status the spec declares for
// the operation (202 for attach and destroy, 200 for request info) whose
// typed body (JSON202, JSON200) decoded, so that field is never nil then.
// (An operation that declares no JSON success, only text/html say, has no
// typed body: any 2xx of it is a success.)
// Otherwise, with the response: an *APIError for a status outside 200-299;
// a *DecodeError for any other 2xx (one the spec does not declare, or whose
// body is not the declared JSON); err as is if not nil, but the generated
// parser's bare JSON and time errors become a *DecodeError. A 202 means
// queued, not done: wait for it with package wait.
func Check[R Response](r R, err error) (R, error) {
	if err != nil {
		switch err.(type) {
		case *json.SyntaxError, *json.UnmarshalTypeError, *time.ParseError:
			return r, &DecodeError{Err: err}
		}
		return r, err
	}
	v := reflect.Indirect(reflect.ValueOf(r))
	if v.Kind() != reflect.Struct {
		return r, errors.New("tensorpool: Check: nil response")
	}
	code := r.StatusCode()
	var hr *http.Response
	if f := v.FieldByName("HTTPResponse"); f.IsValid() && f.CanInterface() {
		hr, _ = f.Interface().(*http.Response)
	}
	if hr == nil {
		hr = &http.Response{StatusCode: code, Header: http.Header{}}
	}
	b, _ := hr.Body.(*body)
	if code < 200 || code > 299 {
		return r, newAPIError(hr, r.GetBody(), b)
	}
	f, anyJSON := jsonField(v, code)
	switch {
	case !f.IsValid() && anyJSON:
		return r, newDecodeError(hr, r.GetBody(), b, fmt.Errorf("status %d is not a success the API spec declares for this operation", code))
	case f.IsValid() && f.Kind() == reflect.Pointer && f.IsNil():
		return r, newDecodeError(hr, r.GetBody(), b, errors.New("the body did not decode as the JSON the API spec declares"))
	}
	return r, nil
}

// jsonField returns v's generated body field for status code (JSON202),
// and whether v has one for any 2xx: without any (text/html pages, a 204)
// there is nothing to check. It compares names digit by digit, allocating
// nothing.
func jsonField(v reflect.Value, code int) (f reflect.Value, anyJSON bool) {
	t := v.Type()
	for i := range t.NumField() {
		n := t.Field(i).Name
		if len(n) != len("JSON200") || !strings.HasPrefix(n, "JSON2") {
			continue
		}
		anyJSON = true
		if int(n[4]-'0')*100+int(n[5]-'0')*10+int(n[6]-'0') == code {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, anyJSON
}

// APIError is a response from the TensorPool API whose status is not 2xx.
// Use errors.As to reach it from any error this module returns.
type APIError struct {
	StatusCode int    // HTTP status code
	Method     string // request method
	Path       string // request path, without host or query
	// Message is the server's message (its "detail", "message", "error" or
	// "external_message" field, or a text/plain body), or empty, with
	// control characters escaped and at most 1 KiB.
	Message string
	// Details holds the field errors of a 422 validation response.
	Details []gen.ValidationError
	// RetryAfter is the delay the server asked for, or 0.
	RetryAfter time.Duration
	// Body is the start of the response body (at most 16 KiB).
	Body []byte
	// Truncated reports that the body passed the cap (WithMaxResponseBytes)
	// or that the connection dropped while it was read.
	Truncated bool
}

// newAPIError builds the error of a non-2xx response whose body is data; b
// is the doer's body, if the response came through one.
func newAPIError(resp *http.Response, data []byte, b *body) *APIError {
	e := &APIError{StatusCode: resp.StatusCode}
	if resp.Request != nil && resp.Request.URL != nil {
		e.Method, e.Path = resp.Request.Method, resp.Request.URL.Path
	}
	e.RetryAfter, _ = retryafter.Parse(resp.Header, time.Now())
	e.Body, e.Truncated = errorBody(data, b)
	e.Message, e.Details = decodeErrorBody(resp.Header.Get("Content-Type"), data)
	return e
}

// errorBody is the start of data for an error (the doer's scrubbed head,
// if it kept one), and whether the response body was cut.
func errorBody(data []byte, b *body) ([]byte, bool) {
	switch {
	case b != nil && b.head != nil:
		data = b.head
	case len(data) > maxErrorBody:
		data = bytes.Clone(data[:maxErrorBody])
	}
	return data, b != nil && b.truncated
}

// Error implements error: method, path, status and the server's message.
func (e *APIError) Error() string {
	msg := fmt.Sprintf("tensorpool: %s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Temporary reports whether the same request may succeed later unchanged
// (408, 425, 429, 500, 502, 503 or 504), for callers retrying themselves:
// the client has already retried what it safely could.
func (e *APIError) Temporary() bool {
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// decodeErrorBody extracts the server's message and a 422's field errors
// from {"detail": "text" | [ValidationError...] | {...}},
// {"message"|"error"|"external_message": "text"}, or a text/plain body.
func decodeErrorBody(contentType string, body []byte) (string, []gen.ValidationError) {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(trimmed, &obj) == nil {
			return messageFromObject(obj, 0)
		}
	case strings.HasPrefix(contentType, "text/plain"):
		return servertext.Clean(string(trimmed)), nil
	}
	return "", nil
}

func messageFromObject(obj map[string]json.RawMessage, depth int) (string, []gen.ValidationError) {
	var s string
	var details []gen.ValidationError
	var inner map[string]json.RawMessage
	raw := obj["detail"]
	switch {
	case json.Unmarshal(raw, &s) == nil && s != "":
		return servertext.Clean(s), nil
	case json.Unmarshal(raw, &details) == nil && len(details) > 0:
		return summarise(details), details
	case depth == 0 && json.Unmarshal(raw, &inner) == nil:
		if m, d := messageFromObject(inner, depth+1); m != "" {
			return m, d
		}
	}
	for _, k := range []string{"message", "error", "external_message"} {
		if json.Unmarshal(obj[k], &s) == nil && s != "" {
			return servertext.Clean(s), nil
		}
	}
	return "", nil
}

// summarise renders field errors as "body.storage_id: Field required; ...".
func summarise(details []gen.ValidationError) string {
	var b strings.Builder
	for i, d := range details {
		if i == maxDetailsInMessage {
			fmt.Fprintf(&b, "; and %d more", len(details)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		var loc []string
		for _, item := range d.Loc {
			if s, err := item.AsValidationErrorLoc0(); err == nil {
				loc = append(loc, s)
			} else if n, err := item.AsValidationErrorLoc1(); err == nil {
				loc = append(loc, strconv.Itoa(n))
			}
		}
		if len(loc) > 0 {
			b.WriteString(strings.Join(loc, ".") + ": ")
		}
		b.WriteString(d.Msg)
	}
	return servertext.Clean(b.String())
}

// fixValidationBody relabels text/plain a JSON 422 body that is not
// FastAPI's validation shape (HTTPException(422, "text") sends {"detail":
// "text"}): the generated parser would fail on it and lose the status.
func fixValidationBody(resp *http.Response, body []byte) {
	if resp.StatusCode != http.StatusUnprocessableEntity || !mediatype.IsJSON(resp.Header.Get("Content-Type")) {
		return
	}
	if json.Unmarshal(body, new(gen.HTTPValidationError)) != nil {
		resp.Header = resp.Header.Clone()
		resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
	}
}

// ErrMalformedResponse is matched (errors.Is) by every *DecodeError.
var ErrMalformedResponse = errors.New("tensorpool: malformed response")

// DecodeError reports a 2xx response without the typed body the spec
// declares (see Check). When the generated parser itself failed, it
// returned no response, so only Err is known.
type DecodeError struct {
	StatusCode  int    // HTTP status, or 0 if unknown
	Method      string // request method, or "" if unknown
	Path        string // request path, without host or query, or "" if unknown
	ContentType string // the response's Content-Type, cleaned for printing
	// Body is the start of the body (at most 16 KiB), for diagnostics.
	Body []byte
	Err  error // what went wrong
}

// newDecodeError builds the error of a 2xx response Check refuses.
func newDecodeError(resp *http.Response, data []byte, b *body, err error) *DecodeError {
	e := &DecodeError{StatusCode: resp.StatusCode, ContentType: servertext.Clean(resp.Header.Get("Content-Type")), Err: err}
	if resp.Request != nil && resp.Request.URL != nil {
		e.Method, e.Path = resp.Request.Method, resp.Request.URL.Path
	}
	e.Body, _ = errorBody(data, b)
	return e
}

// Error implements error. It never includes the body.
func (e *DecodeError) Error() string {
	if e.Method == "" {
		return fmt.Sprintf("tensorpool: decoding the response: %v", e.Err)
	}
	return fmt.Sprintf("tensorpool: %s %s: %d response (Content-Type %q): %v", e.Method, e.Path, e.StatusCode, e.ContentType, e.Err)
}

// Unwrap returns the decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformedResponse) hold.
func (e *DecodeError) Is(target error) bool { return target == ErrMalformedResponse }

// ErrResponseTooLarge is matched (errors.Is) by every *ResponseTooLargeError.
var ErrResponseTooLarge = errors.New("tensorpool: response body too large")

// ResponseTooLargeError reports a 2xx response body past the cap
// (WithMaxResponseBytes). The body of any other status is cut at the cap
// instead (APIError.Truncated), so that its status is never lost.
type ResponseTooLargeError struct {
	StatusCode int    // the response's HTTP status (2xx)
	Method     string // request method
	Path       string // request path, without host or query
	Limit      int64  // the cap, in bytes
}

// Error implements error.
func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("tensorpool: %s %s: %d response body larger than %d bytes (see WithMaxResponseBytes)", e.Method, e.Path, e.StatusCode, e.Limit)
}

// Is makes errors.Is(err, ErrResponseTooLarge) hold.
func (e *ResponseTooLargeError) Is(target error) bool { return target == ErrResponseTooLarge }

// StatusCode returns the HTTP status of the *APIError in err's chain, or 0.
func StatusCode(err error) int {
	var e *APIError
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// IsBadRequest reports whether err is an *APIError with status 400.
func IsBadRequest(err error) bool { return StatusCode(err) == http.StatusBadRequest }

// IsUnauthorized reports whether err is an *APIError with status 401: the API
// key is missing, wrong or revoked.
func IsUnauthorized(err error) bool { return StatusCode(err) == http.StatusUnauthorized }

// IsForbidden reports whether err is an *APIError with status 403.
func IsForbidden(err error) bool { return StatusCode(err) == http.StatusForbidden }

// IsNotFound reports whether err is an *APIError with status 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsConflict reports whether err is an *APIError with status 409 (for
// example: the cluster already has storage attached, or the storage is not
// ready).
func IsConflict(err error) bool { return StatusCode(err) == http.StatusConflict }

// IsUnprocessable reports whether err is an *APIError with status 422: the
// server rejected the request's fields (see APIError.Details).
func IsUnprocessable(err error) bool { return StatusCode(err) == http.StatusUnprocessableEntity }

// IsRateLimited reports whether err is an *APIError with status 429. Its
// RetryAfter says when to try again.
func IsRateLimited(err error) bool { return StatusCode(err) == http.StatusTooManyRequests }

// IsServerError reports whether err is an *APIError with a 5xx status.
func IsServerError(err error) bool { c := StatusCode(err); return c >= 500 && c <= 599 }
