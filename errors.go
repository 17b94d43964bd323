package tensorpool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
	"github.com/tensorpool/tensorpool-go/internal/retryafter"
	"github.com/tensorpool/tensorpool-go/internal/servertext"
)

// maxErrorBody caps APIError.Body and DecodeError.Body.
const maxErrorBody = 16 << 10

// Sentinel is an error that is a constant: no caller can change what
// errors.Is matches, for itself or for anyone else. ErrInvalidRequest,
// ErrResponseTooLarge, ErrNoAPIKey and package wait's causes are ones.
type Sentinel string

// Error returns the text of e.
func (e Sentinel) Error() string { return string(e) }

const (
	// ErrInvalidRequest matches (errors.Is) the error of a request that
	// breaks the id rule or a constraint of the spec. Nothing was sent.
	ErrInvalidRequest Sentinel = "tensorpool: invalid request"
	// ErrResponseTooLarge is wrapped by the *DecodeError of a 2xx response
	// whose body is past the cap (WithMaxResponseBytes).
	ErrResponseTooLarge Sentinel = "response body too large (see WithMaxResponseBytes)"
	// ErrNoAPIKey is returned by NewClient when neither WithAPIKey nor the
	// TENSORPOOL_KEY environment variable gives an API key.
	ErrNoAPIKey Sentinel = "tensorpool: no API key: set " + EnvAPIKey + " or use WithAPIKey"
)

// APIError is a response whose status is not 2xx, such as a redirect the
// client did not follow. errors.As reaches it from any error of this
// module; IsStatus branches on its status.
type APIError struct {
	StatusCode int    // HTTP status code
	Method     string // request method
	Path       string // request path, without host or query
	// Message is the server's "detail", "message", "error" or
	// "external_message", a text/plain body, or a redirect's target: one
	// line, control characters escaped, at most 1 KiB; or empty.
	Message string
	// Details holds the field errors of a 422 validation response.
	Details []gen.ValidationError
	// RetryAfter is the delay the server asked for, or 0.
	RetryAfter time.Duration
	// Header holds the response's headers, such as the server's request
	// id for support. Through NewClient, the key is redacted in them as in
	// the rest of the error.
	Header http.Header
	// Body is the start of the response body (at most 16 KiB).
	Body []byte
	// Truncated reports that the body passed the cap (WithMaxResponseBytes)
	// or that the connection dropped while it was read.
	Truncated bool
}

// newAPIError builds the error of a non-2xx response whose body is data;
// redact is the client's rule, if it read the body, and truncated whether
// it cut it.
func newAPIError(resp *http.Response, data []byte, redact func(string) string, truncated bool) *APIError {
	e := &APIError{StatusCode: resp.StatusCode}
	if resp.Request != nil && resp.Request.URL != nil {
		e.Method, e.Path = resp.Request.Method, resp.Request.URL.Path
	}
	e.RetryAfter, _ = retryafter.Parse(resp.Header, time.Now())
	e.Header = resp.Header.Clone()
	e.Body, e.Truncated = errorBody(data, redact), truncated
	e.Message, e.Details = decodeErrorBody(resp.Header.Get("Content-Type"), data, false)
	if u, err := resp.Location(); e.Message == "" && err == nil && resp.StatusCode/100 == 3 {
		e.Message = servertext.Clean("redirect to " + urlString(u) + " not followed") // no userinfo
	}
	return e
}

// errorBody is the start of data for an error: cut, then redacted if the
// client read it (a key cut there is caught).
func errorBody(data []byte, redact func(string) string) []byte {
	data = data[:min(len(data), maxErrorBody)]
	if redact == nil {
		return bytes.Clone(data)
	}
	return []byte(redact(string(data)))
}

// Error implements error: method, path, status and the server's message.
func (e *APIError) Error() string {
	msg := fmt.Sprintf("tensorpool: %s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// IsStatus reports whether err is an *APIError with one of codes, or with
// any status if codes is empty:
//
//	tensorpool.IsStatus(err, http.StatusConflict)  // the volume is busy, or already attached
//	tensorpool.IsStatus(err, http.StatusForbidden) // the spec's 403 "Access denied" (attach, destroy)
//
// Guess: a missing or wrong key gets that 403; the spec declares it for
// attach and destroy without saying why, and none for request info.
func IsStatus(err error, codes ...int) bool {
	var e *APIError
	return errors.As(err, &e) && (len(codes) == 0 || slices.Contains(codes, e.StatusCode))
}

// decodeErrorBody extracts the server's message and a 422's field errors
// from {"detail": "text" | [ValidationError...] | {...}},
// {"message"|"error"|"external_message": "text"}, or a text/plain body;
// nested is true for the object in "detail", which is read no deeper.
func decodeErrorBody(contentType string, body []byte, nested bool) (string, []gen.ValidationError) {
	if body = bytes.TrimSpace(body); len(body) == 0 || body[0] != '{' {
		if strings.HasPrefix(contentType, "text/plain") {
			return servertext.Clean(string(body)), nil
		}
		return "", nil
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(body, &obj) // not JSON: no message
	var s string
	var details []gen.ValidationError
	switch raw := obj["detail"]; {
	case json.Unmarshal(raw, &s) == nil && s != "":
		return servertext.Clean(s), nil
	case json.Unmarshal(raw, &details) == nil && len(details) > 0:
		return summarise(details), details
	case !nested:
		if m, d := decodeErrorBody("", raw, true); m != "" {
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

// summarise renders the first three field errors as "body.storage_id:
// Field required; ...", and says how many more there are.
func summarise(details []gen.ValidationError) string {
	var parts []string
	for _, d := range details[:min(len(details), 3)] {
		loc := make([]string, len(d.Loc))
		for i, item := range d.Loc {
			loc[i] = fmt.Sprint(item) // a string, or a JSON number (float64)
		}
		parts = append(parts, strings.TrimPrefix(strings.Join(loc, ".")+": ", ": ")+d.Msg)
	}
	if len(details) > 3 {
		parts = append(parts, fmt.Sprintf("and %d more", len(details)-3))
	}
	return servertext.Clean(strings.Join(parts, "; "))
}

// DecodeError reports a 2xx response without the typed body the spec
// declares (see Check): a status the spec does not declare, a body that is
// not the declared JSON, one past the size cap (it wraps
// ErrResponseTooLarge), or one lost mid-way. When the generated parser
// itself failed, it returned no response, so only Err is known.
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
func newDecodeError(resp *http.Response, data []byte, redact func(string) string, err error) *DecodeError {
	e := &DecodeError{StatusCode: resp.StatusCode, Err: err}
	if resp.Request != nil && resp.Request.URL != nil {
		e.Method, e.Path = resp.Request.Method, resp.Request.URL.Path
	}
	e.Body = errorBody(data, redact)
	e.ContentType = servertext.Clean(string(errorBody([]byte(resp.Header.Get("Content-Type")), redact)))
	return e
}

// Error implements error. It never includes the body.
func (e *DecodeError) Error() string {
	if e.Method == "" {
		return fmt.Sprintf("tensorpool: decoding the response: %v", e.Err)
	}
	return fmt.Sprintf("tensorpool: %s %s: %d response (Content-Type %q): %v", e.Method, e.Path, e.StatusCode, e.ContentType, e.Err)
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// invalidRequest is the error of a request refused before sending; it
// matches ErrInvalidRequest.
type invalidRequest struct{ method, path, field, reason string }

func (e *invalidRequest) Error() string {
	return fmt.Sprintf("tensorpool: %s %s: invalid %s: %s (nothing was sent)", e.method, e.path, e.field, e.reason)
}

func (e *invalidRequest) Is(target error) bool { return target == ErrInvalidRequest }
