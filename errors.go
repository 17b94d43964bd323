package tensorpool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/retryafter"
)

const (
	// maxErrorBody caps APIError.Body.
	maxErrorBody = 16 << 10
	// maxMessage caps APIError.Message, in bytes.
	maxMessage = 1024
	// maxDetailsInMessage is how many 422 field errors Message summarises.
	maxDetailsInMessage = 3
)

// APIError is a response from the TensorPool API whose status is not 2xx.
// Use errors.As to reach it from any error this module returns.
type APIError struct {
	StatusCode int    // HTTP status code
	Method     string // request method
	Path       string // request path, without host or query
	// Message is the server's message (its "detail", "message", "error" or
	// "external_message" field), or empty. It is cleaned for printing:
	// control characters removed, at most 1 KiB.
	Message string
	// Details holds the field errors of a 422 validation response.
	Details []gen.ValidationError
	// RetryAfter is the delay the server asked for, or 0.
	RetryAfter time.Duration
	// Body is the start of the response body (at most 16 KiB), for
	// diagnostics.
	Body []byte
	// Truncated reports that the body was cut: it passed the cap
	// (WithMaxResponseBytes, or package wait's 64 KiB for a non-200), or
	// the connection dropped while it was read.
	// Message and Details come from its start.
	Truncated bool
}

// NewAPIError builds an *APIError from a response and its (already read)
// body. It never fails: an undecodable body leaves Message empty.
//
// When resp came through a client made by NewClient, the API key is removed
// from Message, Details and Body, should the server have echoed it, escaped
// or not: percent-encoded, Go-quoted, or with any mix of JSON escapes
// (\u0074 for 't'), in a valid JSON body or not (cut at the size cap,
// broken, HTML). Each run of the body that spells the key is replaced by
// "[REDACTED]", which keeps valid JSON valid; should that not suffice, the
// whole body is withheld (Body is then "[REDACTED]").
func NewAPIError(resp *http.Response, body []byte) *APIError {
	e := &APIError{}
	if resp == nil {
		return e
	}
	e.StatusCode = resp.StatusCode
	var key secret
	if resp.Request != nil {
		e.Method = resp.Request.Method
		key, _ = resp.Request.Context().Value(keyCtxKey{}).(secret)
		e.Truncated, _ = resp.Request.Context().Value(truncatedCtxKey{}).(bool)
		if resp.Request.URL != nil {
			e.Path = key.scrub(resp.Request.URL.Path)
		}
	}
	if d, ok := retryafter.Parse(resp.Header, time.Now()); ok {
		e.RetryAfter = d
	}
	body = key.scrubBytes(body)
	e.Body = bytes.Clone(body[:min(len(body), maxErrorBody)])
	e.Message, e.Details = decodeErrorBody(resp.Header.Get("Content-Type"), body)
	e.Message = key.scrub(e.Message)
	key.scrubDetails(e.Details) // decoding may have unescaped a \u-escaped key
	return e
}

// Error implements error. It holds the method, path, status and the server's
// message; never a header or the API key.
func (e *APIError) Error() string {
	msg := fmt.Sprintf("tensorpool: %s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Temporary reports whether the same request may succeed later unchanged:
// 408, 425, 429, 500, 502, 503 or 504. It is for callers deciding whether
// to try again themselves; the client has already retried what it safely
// could (see the package documentation).
func (e *APIError) Temporary() bool {
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// decodeErrorBody extracts the server's message and, for FastAPI validation
// errors, the field errors. It accepts what TensorPool and FastAPI send:
// {"detail": "text"}, {"detail": [ValidationError...]}, {"detail": {...}},
// {"message"|"error"|"external_message": "text"}; and text/plain bodies.
func decodeErrorBody(contentType string, body []byte) (string, []gen.ValidationError) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return "", nil
	}
	if trimmed[0] == '{' {
		var obj map[string]json.RawMessage
		if json.Unmarshal(trimmed, &obj) == nil {
			return messageFromObject(obj, 0)
		}
		return "", nil
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "text/plain" {
		line, _, _ := strings.Cut(string(trimmed), "\n")
		return cleanMessage(line), nil
	}
	return "", nil
}

func messageFromObject(obj map[string]json.RawMessage, depth int) (string, []gen.ValidationError) {
	if raw, ok := obj["detail"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return cleanMessage(s), nil
		}
		var details []gen.ValidationError
		if json.Unmarshal(raw, &details) == nil && len(details) > 0 {
			return summarise(details), details
		}
		var inner map[string]json.RawMessage
		if depth == 0 && json.Unmarshal(raw, &inner) == nil {
			if m, d := messageFromObject(inner, depth+1); m != "" {
				return m, d
			}
		}
	}
	for _, k := range []string{"message", "error", "external_message"} {
		var s string
		if raw, ok := obj[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return cleanMessage(s), nil
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
		if loc := locString(d.Loc); loc != "" {
			b.WriteString(loc)
			b.WriteString(": ")
		}
		b.WriteString(d.Msg)
	}
	return cleanMessage(b.String())
}

func locString(loc []gen.ValidationError_Loc_Item) string {
	parts := make([]string, 0, len(loc))
	for _, item := range loc {
		if s, err := item.AsValidationErrorLoc0(); err == nil {
			parts = append(parts, s)
		} else if n, err := item.AsValidationErrorLoc1(); err == nil {
			parts = append(parts, fmt.Sprint(n))
		}
	}
	return strings.Join(parts, ".")
}

// cleanMessage makes a server-supplied string safe to print on one line:
// valid UTF-8, no control characters, at most maxMessage bytes.
func cleanMessage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxMessage {
		cut := maxMessage - len("…")
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// ErrMalformedResponse is matched (errors.Is) by every *DecodeError.
var ErrMalformedResponse = errors.New("tensorpool: malformed response")

// DecodeError reports a 2xx response whose body could not be decoded. The
// generated ...WithResponse methods would otherwise return a bare
// encoding/json error and no response; with this package, a caller has one
// type to branch on:
//
//   - the transport returns it, with every field set, for a body whose
//     Content-Type says JSON but that is not JSON at all (cut short, HTML,
//     empty);
//   - Check returns it in place of the generated parser's
//     *json.SyntaxError, *json.UnmarshalTypeError or *time.ParseError:
//     valid JSON of the wrong shape, such as a number where the spec says a
//     string. Only Err is known then.
//
// It is not an *APIError: the status was a success.
type DecodeError struct {
	StatusCode  int    // HTTP status, or 0 if unknown
	Method      string // request method, or "" if unknown
	Path        string // request path, without host or query, or "" if unknown
	ContentType string // the response's Content-Type, cleaned for printing
	// Body is the start of the body (at most 16 KiB), for diagnostics.
	Body []byte
	Err  error // the decoding error
}

// Error implements error. It never includes the body.
func (e *DecodeError) Error() string {
	if e.Method == "" {
		return fmt.Sprintf("tensorpool: decoding the response: %v", e.Err)
	}
	return fmt.Sprintf("tensorpool: %s %s: %d response body is not valid JSON (Content-Type %q): %v", e.Method, e.Path, e.StatusCode, e.ContentType, e.Err)
}

// Unwrap returns the decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformedResponse) hold.
func (e *DecodeError) Is(target error) bool { return target == ErrMalformedResponse }

// newDecodeError builds the transport's *DecodeError, with the key scrubbed.
func newDecodeError(key secret, status int, method, path, contentType string, body []byte, err error) *DecodeError {
	if err == nil {
		err = errors.New("invalid JSON")
	}
	body = key.scrubBytes(body)
	return &DecodeError{
		StatusCode:  status,
		Method:      method,
		Path:        key.scrub(path),
		ContentType: key.scrub(cleanMessage(contentType[:min(len(contentType), maxMessage)])),
		Body:        bytes.Clone(body[:min(len(body), maxErrorBody)]),
		Err:         key.scrubError(err),
	}
}

// Response is what every generated ...Response type satisfies.
type Response interface {
	StatusCode() int
	GetBody() []byte
}

// Check turns the results of a generated ...WithResponse method into an
// error when the call failed or the status is not 2xx:
//
//	resp, err := tensorpool.Check(c.StorageAttachWithResponse(ctx, body))
//
// If err is not nil, Check returns it unchanged, except for the generated
// parser's bare decoding errors (*json.SyntaxError, *json.UnmarshalTypeError,
// *time.ParseError), which it wraps in a *DecodeError. Otherwise a status
// outside 200-299 gives an *APIError (with the response still returned, for
// its JSON422 field and headers). Every 2xx counts as success: TensorPool's
// asynchronous operations answer 202 Accepted, which means the request was
// queued, not done (wait for it with package wait); and a 200 where the spec
// says 202 is still a success, though the generated JSON202 field is then nil.
func Check[R Response](r R, err error) (R, error) {
	if err != nil {
		switch err.(type) {
		case *json.SyntaxError, *json.UnmarshalTypeError, *time.ParseError:
			return r, &DecodeError{Err: err}
		}
		return r, err
	}
	v := reflect.ValueOf(r)
	if !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return r, errors.New("tensorpool: Check: nil response")
	}
	code := r.StatusCode()
	if code >= 200 && code <= 299 {
		return r, nil
	}
	hr := httpResponseOf(v)
	if hr == nil {
		hr = &http.Response{StatusCode: code, Header: http.Header{}}
	}
	return r, NewAPIError(hr, r.GetBody())
}

// httpResponseOf returns the HTTPResponse field of a generated response.
func httpResponseOf(v reflect.Value) *http.Response {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName("HTTPResponse")
	if !f.IsValid() || !f.CanInterface() {
		return nil
	}
	hr, _ := f.Interface().(*http.Response)
	return hr
}

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
