package tensorpool

import (
	"fmt"
	"net/http"
	"time"

	"github.com/tensorpool/tensorpool-go/gen"
)

// APIError is a response from the TensorPool API whose status is not 2xx.
// Use errors.As to reach it from any error this module returns.
type APIError struct {
	StatusCode int    // HTTP status code
	Method     string // request method
	Path       string // request path, without host or query
	// Message is the server's message (its "detail", "message", "error" or
	// "external_message" field), or empty.
	Message string
	// Details holds the field errors of a 422 validation response.
	Details []gen.ValidationError
	// RetryAfter is the delay the server asked for, or 0.
	RetryAfter time.Duration
	// Body is the start of the response body (at most maxErrorBody bytes).
	Body []byte
}

// NewAPIError builds an *APIError from a response and its (already read)
// body. It never fails: an undecodable body leaves Message empty.
func NewAPIError(resp *http.Response, body []byte) *APIError {
	e := &APIError{StatusCode: resp.StatusCode}
	if resp.Request != nil {
		e.Method = resp.Request.Method
		if resp.Request.URL != nil {
			e.Path = resp.Request.URL.Path
		}
	}
	// Filled in by the front-door work: message, 422 details, Retry-After, body cap.
	_ = body
	return e
}

// Error implements error.
func (e *APIError) Error() string {
	msg := fmt.Sprintf("tensorpool: %s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}
